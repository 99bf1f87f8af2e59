/**
 * The charge half of PixProvider over API Pix: a gateway charge is a cob whose txid is derived
 * from the charge id (core/pix/apiPixIds.ts), so every retry of a create addresses the same cob
 * and the cob names its charge without a lookup table.
 *
 * A cob's word alone never makes a charge PAID: each Pix the cob lists is read back with
 * GET /pix/{e2eid}, and only a Pix of the cob's amount, for its txid, received on our key counts.
 * One that does not check out is logged and the charge reads as not paid, so settlement records
 * an alert and credits nothing.
 */
import { chargeIdOfTxid, txidFor } from '../../core/pix/apiPixIds';
import { centsToPixAmount, pixAmountToCents } from '../../core/pix/pixAmount';
import { qrCodePngBase64 } from '../../core/pix/qrPng';
import type { Logger } from 'pino';
import { ProviderError, type IssueChargeRequest, type ProviderCharge } from '../../core/provider';
import { chargeOfCob } from './chargeOfCob';
import { PixApiErrorCodes, type Cob, type PixApiClient, type Pix } from './pixApi';

/** The client operations charges use (tests may pass a narrower fake). */
export type CobClient = Pick<PixApiClient, 'putCob' | 'getCob' | 'removeCob' | 'getPix'>;

export interface ApiPixChargesOptions {
  client: CobClient;
  /** PIX_RECEIVING_KEY: the chave every cob is created on, and the one a paying Pix must name. */
  receivingKey: string;
  /** Where a Pix that does not check out is reported. */
  logger: Logger;
  now?: () => number;
}

/** solicitacaoPagador's limit in the standard (and our descriptions' too: MAX_CHARGE_DESCRIPTION). */
const MAX_SOLICITACAO = 140;
/** The payer reads "Estabelecimento: <merchant's name>" beside the cob. */
const MERCHANT_LABEL = 'Estabelecimento';
const MAX_INFO_VALUE = 200;

export class ApiPixCharges {
  private readonly now: () => number;

  constructor(private readonly opts: ApiPixChargesOptions) {
    if (!opts.receivingKey) throw new Error('ApiPixCharges: the receiving key is required');
    this.now = opts.now ?? Date.now;
  }

  /**
   * PUT /cob/{txid}. The merchant's name goes in `infoAdicionais`, which the standard has the
   * payer's app show with the cob: a cob has no field for the BR Code's merchant name (field 59),
   * which the PSP fills with its receiving user's, the gateway's account.
   */
  async issueCharge(req: IssueChargeRequest): Promise<ProviderCharge> {
    const txid = txidFor(req.reference);
    // Whole seconds, rounded up: the cob must not stop taking payment before our charge expires.
    const expiracao = Math.max(1, Math.ceil((Date.parse(req.expiresAt) - this.now()) / 1000));
    const description = req.description ? [...req.description].slice(0, MAX_SOLICITACAO).join('') : '';
    const cob = await this.opts.client.putCob(txid, {
      calendario: { expiracao },
      valor: { original: centsToPixAmount(req.amountCents) },
      chave: this.opts.receivingKey,
      ...(description ? { solicitacaoPagador: description } : {}),
      ...(req.merchantName
        ? { infoAdicionais: [{ nome: MERCHANT_LABEL, valor: [...req.merchantName].slice(0, MAX_INFO_VALUE).join('') }] }
        : {}),
    });
    return this.chargeOf(cob, { image: true });
  }

  /** GET /cob/{txid}; a cob the PSP does not have is the contract's CHARGE_NOT_FOUND. */
  async getCharge(txid: string): Promise<ProviderCharge> {
    const cob = await this.opts.client.getCob(txid);
    if (!cob) throw chargeNotFound();
    return this.chargeOf(cob);
  }

  /** The cob of our charge id, or null when the PSP has none (or the reference is not a charge id of ours). */
  async findChargeByReference(reference: string): Promise<ProviderCharge | null> {
    let txid: string;
    try {
      txid = txidFor(reference);
    } catch {
      return null;
    }
    const cob = await this.opts.client.getCob(txid);
    return cob ? this.chargeOf(cob) : null;
  }

  /**
   * PATCH /cob/{txid} to REMOVIDA_PELO_USUARIO_RECEBEDOR; a cob already paid (or removed) is
   * answered as it is, so a paid charge stays paid. A 404 is taken as "no such cob" only once a
   * GET agrees: a refusal's status alone must not make a paid charge look unknown.
   */
  async closeCharge(txid: string, reason: 'EXPIRED' | 'CANCELLED'): Promise<ProviderCharge> {
    let cob: Cob;
    try {
      cob = await this.opts.client.removeCob(txid);
    } catch (err) {
      if (
        err instanceof ProviderError &&
        err.code === PixApiErrorCodes.cobNotFound &&
        (await this.opts.client.getCob(txid)) === null
      )
        throw chargeNotFound();
      throw err;
    }
    return this.chargeOf(cob, { closedFor: reason });
  }

  /**
   * The cob as the provider contract's charge. Only an issue draws the QR image: the reads that
   * settle, sweep and close a charge never show it, and drawing it there took 12.6 % of the
   * worker's main thread during payments (profiled under load: docs/benchmarks.md); their
   * qrCodeBase64 is ''.
   */
  private async chargeOf(
    cob: Cob,
    opts: { image?: boolean; closedFor?: 'EXPIRED' | 'CANCELLED' } = {},
  ): Promise<ProviderCharge> {
    const { closedFor } = opts;
    const payment = cob.status === 'CONCLUIDA' ? await this.confirmedPayment(cob) : null;
    const qrCodeBase64 = opts.image && cob.pixCopiaECola ? await qrCodePngBase64(cob.pixCopiaECola) : '';
    return chargeOfCob({ cob, payment, qrCodeBase64, closedFor, nowMs: this.now() });
  }

  /** The first Pix listed on the cob that the PSP's own record of it backs up, or null. */
  private async confirmedPayment(cob: Cob): Promise<Pix | null> {
    for (const listed of cob.pix ?? []) {
      const pix = await this.opts.client.getPix(listed.endToEndId);
      const problem = mismatch(pix, cob, this.opts.receivingKey);
      if (!problem) return pix;
      // Not a secret, and needed to find the payment: the ids and what differs, never the payer.
      this.opts.logger.error(
        { chargeId: chargeIdOfTxid(cob.txid), txid: cob.txid, endToEndId: listed.endToEndId, problem },
        'ALERT: a Pix the cob lists does not check out; the charge is not paid by it',
      );
    }
    return null;
  }
}

/** Why GET /pix/{e2eid} does not back a payment of this cob, or null when it does. */
function mismatch(pix: Pix | null, cob: Cob, receivingKey: string): string | null {
  if (!pix) return 'the PSP has no Pix with this endToEndId';
  if (pix.txid !== cob.txid) return 'the Pix is for another txid';
  if (pixAmountToCents(pix.valor) !== pixAmountToCents(cob.valor.original))
    return `the Pix is of ${pix.valor}, the cob of ${cob.valor.original}`;
  if (pix.chave !== receivingKey) return 'the Pix was not received on our key';
  return null;
}

/** The PixProvider contract's "no such charge" (activities/charges/providerErrors.ts, isNoRecord). */
function chargeNotFound(): ProviderError {
  return new ProviderError('API Pix: the PSP has no cob for this charge', 'CHARGE_NOT_FOUND', false, 404);
}
