/**
 * An in-memory Pix provider for workflow tests only (the provider is outside the system): charges
 * and transfers.
 * Integration tests use the real sandbox over HTTP instead.
 */
import crypto from 'node:crypto';
import {
  ProviderError,
  type IssueChargeRequest,
  type PixKeyOwner,
  type PixProvider,
  type ProviderCharge,
  type PaymentReturnRequest,
  type ProviderTransfer,
  type TransferRequest,
} from '../../core/provider';

export class FakePixProvider implements PixProvider {
  charges = new Map<string, ProviderCharge>();
  issueAttempts = 0;
  closeCalls: { id: string; reason: string }[] = [];
  /** Makes issueCharge fail: transiently (retried) or permanently. */
  issueFailure: 'transient' | 'permanent' | null = null;
  /** When set, the charge is found PAID at close time (a payment that raced the timer). */
  payOnClose = false;

  async issueCharge(req: IssueChargeRequest): Promise<ProviderCharge> {
    this.issueAttempts++;
    if (this.issueFailure === 'transient')
      throw new ProviderError('provider unavailable', 'PROVIDER_UNAVAILABLE', true, 503);
    if (this.issueFailure === 'permanent') throw new ProviderError('refused', 'PROVIDER_REJECTED', false, 422);
    const existing = [...this.charges.values()].find((c) => c.reference === req.reference);
    if (existing) return existing;
    const charge: ProviderCharge = {
      id: `fake_${crypto.randomUUID()}`,
      reference: req.reference,
      txid: crypto.randomBytes(16).toString('hex').slice(0, 30),
      status: 'ACTIVE',
      amountCents: req.amountCents,
      copyPaste:
        '00020126360014br.gov.bcb.pix0114+5511999999999520400005303986540510.005802BR5905FAKE 6009SAO PAULO62070503***6304ABCD',
      qrCodeBase64: Buffer.from('fake-png').toString('base64'),
      expiresAt: req.expiresAt,
      createdAt: new Date().toISOString(),
      paidAt: null,
      endToEndId: null,
      payer: null,
    };
    this.charges.set(charge.id, charge);
    return charge;
  }

  async getCharge(id: string): Promise<ProviderCharge> {
    const c = this.charges.get(id);
    if (!c) throw new ProviderError('not found', 'CHARGE_NOT_FOUND', false, 404);
    return c;
  }

  async findChargeByReference(reference: string): Promise<ProviderCharge | null> {
    return [...this.charges.values()].find((c) => c.reference === reference) ?? null;
  }

  markPaid(id: string): ProviderCharge {
    const c = this.charges.get(id)!;
    c.status = 'PAID';
    c.paidAt = new Date().toISOString();
    c.endToEndId = `E99999999${'202611220000'}${crypto.randomBytes(8).toString('hex').slice(0, 11)}`;
    c.payer = {
      name: 'Pagador',
      document: '52998224725',
      documentType: 'CPF',
      email: null,
      phone: null,
      institution: 'Banco',
      ispb: '99999999',
      agency: '1',
      account: '2',
    };
    return c;
  }

  async closeCharge(id: string, reason: 'EXPIRED' | 'CANCELLED'): Promise<ProviderCharge> {
    this.closeCalls.push({ id, reason });
    const c = await this.getCharge(id);
    if (c.status === 'ACTIVE') {
      if (this.payOnClose) return this.markPaid(id);
      c.status = reason;
    }
    return c;
  }

  /** Transfers by reference: one per reference, as with an idempotency key. */
  transfers = new Map<string, ProviderTransfer>();
  transferCalls = 0;
  /** The next N transfer calls fail transiently (503), before reaching the provider. */
  transientTransferFailures = 0;
  /** The provider makes the transfer but its answer is lost (a timeout): "did my call go through?". */
  loseTransferAnswers = false;

  /**
   * What the next transfer calls do, one entry per call, before the defaults below:
   * 'lose' makes the transfer and loses the answer (timeout); 'unauthorized' answers 401 and
   * 'rejected' answers 400, both without making anything; 'wrong-amount' makes it for another amount.
   */
  transferScript: ('lose' | 'unauthorized' | 'rejected' | 'wrong-amount')[] = [];

  /** Real milliseconds each transfer call takes (a slow provider). */
  transferDelayMs = 0;

  /** Awaited at the start of every transfer call: a test holds one transfer while others go on. */
  beforeTransfer: ((req: TransferRequest) => Promise<void>) | null = null;

  /** Like the sandbox: a key containing "invalid" fails with INVALID_PIX_KEY, anything else completes. */
  async transfer(req: TransferRequest): Promise<ProviderTransfer> {
    this.transferCalls++;
    await this.beforeTransfer?.(req);
    if (this.transferDelayMs > 0) await new Promise((r) => setTimeout(r, this.transferDelayMs));
    const scripted = this.transferScript.shift();
    if (scripted === 'unauthorized')
      throw new ProviderError('POST /v1/transfers → 401: invalid API key sk_live_leaked', 'UNAUTHORIZED', false, 401);
    if (scripted === 'rejected')
      throw new ProviderError('POST /v1/transfers → 400: recipientDocument is invalid', 'VALIDATION_ERROR', false, 400);
    if (scripted === 'wrong-amount') req = { ...req, amountCents: req.amountCents + 1 };
    if (scripted === 'lose') {
      await this.transferNow(req);
      throw new ProviderError('POST /v1/transfers: no answer within 5000ms', 'PROVIDER_TIMEOUT', true);
    }
    return this.transferNow(req);
  }

  private async transferNow(req: TransferRequest): Promise<ProviderTransfer> {
    if (this.transientTransferFailures > 0) {
      this.transientTransferFailures--;
      throw new ProviderError('provider unavailable', 'PROVIDER_UNAVAILABLE', true, 503);
    }
    let transfer = this.transfers.get(req.reference);
    if (!transfer) {
      const failed = req.pixKey.toLowerCase().includes('invalid');
      transfer = {
        id: `fake_tr_${crypto.randomUUID()}`,
        reference: req.reference,
        status: failed ? 'FAILED' : 'COMPLETED',
        amountCents: req.amountCents,
        pixKey: req.pixKey,
        pixKeyType: req.pixKeyType,
        recipientName: req.recipientName,
        endToEndId: failed ? null : `E99999999202611220000${crypto.randomBytes(8).toString('hex').slice(0, 11)}`,
        failureCode: failed ? 'INVALID_PIX_KEY' : null,
        failureReason: failed ? 'Pix key not found in DICT' : null,
        createdAt: new Date().toISOString(),
      };
      this.transfers.set(req.reference, transfer);
    }
    if (this.loseTransferAnswers) throw new ProviderError('no answer within 5000ms', 'PROVIDER_TIMEOUT', true);
    return transfer;
  }

  /** A devolução, like the sandbox: to the payer, FAILED when the payment is unknown to the test. */
  async returnPayment(req: PaymentReturnRequest): Promise<ProviderTransfer> {
    return this.transferNow({
      reference: req.reference,
      amountCents: req.amountCents,
      pixKey: '52998224725',
      pixKeyType: 'CPF',
      recipientName: 'Pagador Fake',
    });
  }

  /** The directory (DICT): keys registered by the test; a CPF key belongs to that CPF. */
  dictKeys = new Map<string, PixKeyOwner>();

  async lookUpPixKey(key: string): Promise<PixKeyOwner | null> {
    const known = this.dictKeys.get(key);
    if (known) return known;
    if (!/^\d{11}$/.test(key)) return null;
    return {
      key,
      keyType: 'CPF',
      owner: { name: 'Titular', documentType: 'CPF', document: `***.${key.slice(3, 6)}.${key.slice(6, 9)}-**` },
      bank: { ispb: '99999999', name: 'Banco Fake' },
    };
  }

  /** Look-ups by reference fail transiently while set: the outcome stays unknown. */
  lookupUnavailable = false;
  lookupCalls = 0;

  getPaymentReturn(req: { reference: string; endToEndId: string }): Promise<ProviderTransfer | null> {
    return this.getTransferByReference(req.reference);
  }

  async getTransferByReference(reference: string): Promise<ProviderTransfer | null> {
    this.lookupCalls++;
    if (this.lookupUnavailable) throw new ProviderError('provider unavailable', 'PROVIDER_UNAVAILABLE', true, 503);
    return this.transfers.get(reference) ?? null;
  }
}
