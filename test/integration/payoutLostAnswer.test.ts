/**
 * "Did my transfer go through?" over HTTP with the sandbox provider:
 * the sandbox makes the transfer but its answer is lost, then every call of ours is refused with
 * 401 (a key rotated in the wrong order). The item must stay reserved while the outcome is
 * unknown — the old code released it on the 401 although the money had left — and end PAID
 * from the provider's own record once it answers again: exactly one transfer there.
 */
import { PayoutItem } from '../../db/models';
import { accounts } from '../../core/ledger/accounts';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { waitFor } from '../support/env';
import { fundByPaidCharge, items, payoutMerchant, setFaults, signedCall, waitForBatchEnd } from '../support/payouts';

jest.setTimeout(120_000);

let stack: IntegrationStack;

beforeAll(async () => {
  // A stack of its own, not the worker's shared one (test/support/sharedStack.ts): it restarts its sandbox.
  stack = await startIntegrationStack();
});

afterAll(async () => {
  await stack?.stop();
});

it('never releases an item the provider paid, whatever it answers to the retries', async () => {
  const merchant = await payoutMerchant(stack, { feeCents: 50 });
  await fundByPaidCharge(stack, merchant, 20_000);
  const availableBefore = await balance(stack.sequelize, accounts.merchantAvailable(merchant.merchantId));

  await setFaults(stack, { timeoutRate: 1 }); // processed, answer swallowed
  const created = await signedCall(stack, merchant, 'POST', '/v1/payouts/batches', {
    idempotencyKey: `lost-${Date.now()}`,
    items: items(1, { amountCents: 1_000 }),
  });
  expect(created.status).toBe(201);
  const [item] = await PayoutItem.findAll({ where: { batchId: created.body.batchId } });
  const madeAtProvider = () => [...stack.sandbox.state.transfers.values()].filter((t) => t.reference === item.id);
  await waitFor(
    async () => madeAtProvider().length === 1,
    'the sandbox to make the transfer and lose the answer',
    90_000,
  );

  await stack.restartSandbox({ apiKey: 'rotated-in-the-wrong-order' }); // every call now: 401
  await new Promise((r) => setTimeout(r, 6_000)); // several retries, each refused
  await item.reload();
  expect(item.status).toBe('SENDING');
  expect(await balance(stack.sequelize, accounts.merchantReserved(merchant.merchantId))).toBe(1_050);

  await stack.restartSandbox(); // the right key again
  const batch = await waitForBatchEnd(stack, merchant, created.body.batchId, 90_000);
  expect(batch.status).toBe('COMPLETED');
  await item.reload();
  expect(item.status).toBe('PAID');
  expect(madeAtProvider()).toHaveLength(1);
  expect(item.providerTransferId).toBe(madeAtProvider()[0].id);
  expect(await balance(stack.sequelize, accounts.merchantReserved(merchant.merchantId))).toBe(0);
  expect(await balance(stack.sequelize, accounts.merchantAvailable(merchant.merchantId))).toBe(availableBefore - 1_050);
  await assertLedgerInvariant(stack.sequelize);
});
