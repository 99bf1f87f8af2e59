/**
 * The PSP account's balance (Efí: GET /v2/gn/saldo): what money out is sent from. A withdrawal
 * the account cannot cover is refused with PSP_BALANCE_INSUFFICIENT and nothing is sent; a payout
 * slice waits (parked, its items PENDING with that code, the funding reserved) rather than being
 * sent to fail one Pix at a time; operators see the balance on /metrics and in the CLI.
 * A stack of its own: the sandbox account's balance is set low, which other files must not meet.
 */
import crypto from 'node:crypto';
import { accounts } from '../../core/ledger/accounts';
import { idEnvioFor } from '../../core/pix/apiPixIds';
import { PayoutItem } from '../../db/models';
import type { MerchantCredentials } from '../../db/identity/merchantAdmin';
import { waitFor } from '../support/env';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { BUILD_WAIT_MS, builtOperatorCli } from '../support/operatorCli';
import {
  fundByPaidCharge,
  items,
  payoutMerchant,
  sandboxTransfers,
  signedCall,
  waitForBatchEnd,
} from '../support/payouts';

jest.setTimeout(120_000);

let stack: IntegrationStack;

beforeAll(async () => {
  stack = await startIntegrationStack();
});

afterAll(async () => {
  await stack?.stop();
});

afterEach(async () => {
  await setAccountBalance(100_000_000_00);
  await assertLedgerInvariant(stack.sequelize);
});

async function setAccountBalance(cents: number): Promise<void> {
  const res = await fetch(`${stack.sandboxUrl}/sandbox/efi/saldo`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ cents }),
  });
  expect(res.status).toBeLessThan(300);
}

const available = (creds: MerchantCredentials) =>
  balance(stack.sequelize, accounts.merchantAvailable(creds.merchantId));
const reserved = (creds: MerchantCredentials) => balance(stack.sequelize, accounts.merchantReserved(creds.merchantId));

it('a withdrawal the PSP account cannot cover is refused with PSP_BALANCE_INSUFFICIENT: nothing sent, the reserve back', async () => {
  const seller = await stack.createMerchant({
    name: 'Loja Saldo',
    document: '11144477735',
    pixKey: `financeiro+${crypto.randomUUID().slice(0, 8)}@loja.com.br`,
    pixKeyType: 'EMAIL',
  });
  await fundByPaidCharge(stack, seller, 50_000);
  const before = await available(seller);
  await setAccountBalance(5_000);
  const res = await stack.api('POST', '/sellers/saques', {
    creds: seller,
    body: { amountCents: 20_000 },
    headers: { 'x-idempotency-key': `saque-${crypto.randomUUID()}` },
  });
  expect(res.status).toBe(201);
  const failed = await waitFor(async () => {
    const got = await stack.api('GET', `/sellers/saques/${res.body.id}`, { creds: seller });
    return got.body?.status === 'FAILED' ? got.body : null;
  }, 'the withdrawal refused');
  expect(failed.failureReason).toMatch(/could not cover/);
  expect((await sandboxTransfers(stack))[res.body.id]).toBeUndefined();
  expect(stack.sandbox.state.efiSends.has(idEnvioFor(res.body.id))).toBe(false);
  expect(await available(seller)).toBe(before);
  expect(await reserved(seller)).toBe(0);
});

it('a payout the PSP account cannot cover waits with PSP_BALANCE_INSUFFICIENT on its items, nothing sent; cancelled, its funding goes back', async () => {
  const m = await payoutMerchant(stack, { feeCents: 10 });
  await fundByPaidCharge(stack, m, 100_000);
  const before = await available(m);
  await setAccountBalance(5_000);
  const created = await signedCall(stack, m, 'POST', '/v1/payouts/batches', {
    idempotencyKey: `saldo-${crypto.randomUUID()}`,
    items: items(3, { amountCents: 3_000 }),
  });
  expect(created.status).toBe(201);
  const batchId = created.body.batchId as string;
  await waitFor(async () => {
    const rows = await PayoutItem.findAll({ where: { batchId } });
    return (
      rows.length === 3 && rows.every((i) => i.status === 'PENDING' && i.lastErrorCode === 'PSP_BALANCE_INSUFFICIENT')
    );
  }, 'the items parked for the balance');
  expect(await reserved(m)).toBe(3 * 3_010);
  const cancel = await signedCall(stack, m, 'POST', `/v1/payouts/batches/${batchId}/cancel`, { reason: 'saldo' });
  expect(cancel.status).toBeLessThan(300);
  const done = await waitForBatchEnd(stack, m, batchId, 90_000);
  expect(done.status).toBe('CANCELLED');
  const sent = await sandboxTransfers(stack);
  for (const item of await PayoutItem.findAll({ where: { batchId } })) expect(sent[item.id]).toBeUndefined();
  expect(await available(m)).toBe(before);
  expect(await reserved(m)).toBe(0);
});

it(
  'operators see the balance: gateway_psp_balance_cents on /metrics and `gateway provider balance`',
  async () => {
    await setAccountBalance(123_456);
    const metrics = await fetch(`${stack.apiUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^gateway_psp_balance_cents 123456$/m);
    const cli = await builtOperatorCli();
    const out = await cli.run(['provider', 'balance'], { ...stack.workerEnv, NODE_ENV: 'test' });
    expect(out).toMatchObject({ status: 0 });
    expect(out.stdout).toContain('PSP account balance: R$ 1234,56 (123456 cents)');
  },
  BUILD_WAIT_MS,
);
