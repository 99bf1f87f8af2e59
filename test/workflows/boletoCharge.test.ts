/**
 * ChargeLifecycle with method BOLETO on the time-skipping test server: the boleto stays payable
 * through its grace days and is cancelled at the provider at due date + grace; a payment that
 * races that close is settled for what was paid. Real activities and database; only the provider
 * (outside the system) is an in-memory fake. Over HTTP against the sandbox:
 * test/integration/boletoCharges.test.ts.
 */
import crypto from 'node:crypto';
import { accounts } from '../../core/ledger/accounts';
import { ProviderError, type BoletoProvider, type IssueBoletoRequest, type ProviderBoleto } from '../../core/provider';
import { createMerchantWithCredential } from '../../db/identity/merchantAdmin';
import { Charge } from '../../db/models';
import { chargeStatusQuery, chargeWorkflowId, issueChargeUpdate } from '../../workflows/charges/definitions';
import type { ChargeLifecycleInput } from '../../workflows/charges/types';
import { FakePixProvider } from '../support/fakePixProvider';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { useWorkflowEnv } from '../support/workflowEnv';

jest.setTimeout(120_000);

/** Boletos in memory; `payOnCancel` makes the payer pay just before our cancel (the race). */
class FakeBoletoProvider extends FakePixProvider implements BoletoProvider {
  boletos = new Map<string, ProviderBoleto>();
  cancelCalls: string[] = [];
  payOnCancel: { amountCents: number } | null = null;

  async issueBoleto(req: IssueBoletoRequest): Promise<ProviderBoleto> {
    const existing = [...this.boletos.values()].find((b) => b.reference === req.reference);
    if (existing) return existing;
    const boleto: ProviderBoleto = {
      id: `fake_bol_${crypto.randomUUID()}`,
      reference: req.reference,
      status: 'REGISTERED',
      bankCode: '999',
      nossoNumero: '00000000000000001',
      barcode: '9'.repeat(44),
      digitableLine: '9'.repeat(47),
      dueDate: req.dueDate,
      amountCents: req.amountCents,
      fine: req.fine ?? null,
      interest: req.interest ?? null,
      graceDays: req.graceDays ?? 0,
      payer: { name: req.payer.name, document: req.payer.document, email: req.payer.email ?? null },
      pix: {
        copyPaste:
          '00020126360014br.gov.bcb.pix0114+5511999999999520400005303986540510.005802BR5905FAKE 6009SAO PAULO62070503***6304ABCD',
        qrCodeBase64: '',
        txid: `BOLETO${crypto.randomBytes(12).toString('hex').toUpperCase()}`,
        status: 'ACTIVE',
      },
      createdAt: new Date().toISOString(),
      paidAt: null,
      cancelledAt: null,
      payment: null,
    };
    this.boletos.set(boleto.id, boleto);
    return boleto;
  }

  async getBoleto(id: string): Promise<ProviderBoleto> {
    const b = this.boletos.get(id);
    if (!b) throw new ProviderError('not found', 'BOLETO_NOT_FOUND', false, 404);
    return b;
  }

  async findBoletoByReference(reference: string): Promise<ProviderBoleto | null> {
    return [...this.boletos.values()].find((b) => b.reference === reference) ?? null;
  }

  async cancelBoleto(id: string): Promise<ProviderBoleto> {
    this.cancelCalls.push(id);
    const b = await this.getBoleto(id);
    if (this.payOnCancel && b.status === 'REGISTERED') this.pay(b, this.payOnCancel.amountCents);
    if (b.status === 'PAID') throw new ProviderError('paid', 'BOLETO_NOT_CANCELLABLE', false, 409);
    b.status = 'CANCELLED';
    b.pix.status = 'CLOSED';
    return b;
  }

  pay(b: ProviderBoleto, amountCents: number): void {
    const paidAt = new Date().toISOString();
    b.status = 'PAID';
    b.paidAt = paidAt;
    b.pix.status = 'CLOSED';
    b.payment = {
      via: 'BOLETO',
      paidAt,
      paidDate: paidAt.slice(0, 10),
      amountCents,
      expectedAmountCents: b.amountCents + 200,
      fineCents: 200,
      interestCents: 0,
      daysLate: 1,
      late: true,
      amountMismatch: amountCents < b.amountCents + 200 ? 'UNDERPAID' : null,
      settlement: 'D1',
      creditDate: paidAt.slice(0, 10),
      endToEndId: null,
      payer: {
        name: 'Pagador',
        document: '52998224725',
        documentType: 'CPF',
        email: null,
        phone: null,
        institution: 'Banco Sandbox',
        ispb: '99999999',
        agency: '0001',
        account: '12345-6',
      },
    };
  }
}

const wf = useWorkflowEnv();
let merchantId: string;

beforeAll(async () => {
  ({ merchantId } = await createMerchantWithCredential(
    wf.sequelize,
    { name: 'Loja Boleto WF' },
    crypto.randomBytes(32).toString('hex'),
  ));
});

afterEach(async () => {
  await assertLedgerInvariant(wf.sequelize);
});

async function input(graceDays: number): Promise<ChargeLifecycleInput> {
  const serverNow = await wf.env.currentTimeMs();
  return {
    chargeId: crypto.randomUUID(),
    merchantId,
    amountCents: 10_000,
    feeCents: 100,
    description: 'boleto',
    externalRef: null,
    metadata: null,
    splits: [],
    expiresAt: new Date(serverNow + 30 * 60_000).toISOString(),
    idempotencyKey: null,
    payer: { name: 'Bia Souza', taxId: '52998224725', email: null },
    webhook: null,
    method: 'BOLETO',
    boleto: { finePercentBps: 200, monthlyInterestBps: 100, graceDays },
  };
}

async function run<T>(
  provider: FakeBoletoProvider,
  args: ChargeLifecycleInput,
  fn: (handle: Awaited<ReturnType<typeof wf.env.client.workflow.start>>) => Promise<T>,
): Promise<T> {
  return wf.withWorker(wf.activities(provider), async (taskQueue) => {
    const handle = await wf.env.client.workflow.start('chargeLifecycle', {
      taskQueue,
      workflowId: chargeWorkflowId(args.chargeId),
      args: [args],
    });
    await handle.executeUpdate(issueChargeUpdate);
    return fn(handle);
  });
}

it('stays PENDING past the due time through the grace days, then cancels the boleto at the provider (EXPIRED)', async () => {
  const provider = new FakeBoletoProvider();
  const args = await input(2);
  const outcome = await run(provider, args, async (handle) => {
    await wf.env.sleep('1 day'); // past the due time, within the grace days
    expect(await handle.query(chargeStatusQuery)).toBe('PENDING');
    expect(provider.cancelCalls).toEqual([]);
    return handle.result();
  });
  expect(outcome).toMatchObject({ status: 'EXPIRED' });
  const row = await Charge.findByPk(args.chargeId);
  expect(row).toMatchObject({ status: 'EXPIRED', method: 'BOLETO', boletoGraceDays: 2, boletoFineBps: 200 });
  expect(provider.cancelCalls).toEqual([row!.providerChargeId]);
});

it('a payment that races the close is settled for what was paid (late, under-paid, fee scaled)', async () => {
  const provider = new FakeBoletoProvider();
  provider.payOnCancel = { amountCents: 9_000 };
  const args = await input(0);
  const before = await balance(wf.sequelize, accounts.merchantAvailable(merchantId));
  const boletoPayinsBefore = await balance(wf.sequelize, accounts.boletoPayins);
  const outcome = await run(provider, args, (handle) => handle.result());
  expect(outcome).toMatchObject({ status: 'PAID' });
  const row = await Charge.findByPk(args.chargeId);
  expect(row).toMatchObject({
    status: 'PAID',
    boletoPaidAmountCents: 9_000,
    boletoPaidFeeCents: 90,
    boletoPaidVia: 'BOLETO',
    boletoLate: true,
    boletoUnderpaid: true,
    boletoOverpaid: false,
  });
  expect(await balance(wf.sequelize, accounts.merchantAvailable(merchantId))).toBe(before + 8_910);
  expect(await balance(wf.sequelize, accounts.boletoPayins)).toBe(boletoPayinsBefore - 9_000);
});
