/**
 * "Did my transfer go through?" over HTTP with the sandbox PSP (Efí's send API): the sandbox
 * accepts the send but its answer is lost, then every call of ours is refused with 401 (the OAuth
 * client's secret rotated in the wrong order: the restart drops every token, and the token
 * endpoint refuses ours). The item must stay reserved while the outcome is unknown — the old code
 * released it on the 401 although the money had left — and end PAID from Efí's own record once
 * it answers again: exactly one send under the item's idEnvio.
 */
import { PayoutItem } from '../../db/models';
import { accounts } from '../../core/ledger/accounts';
import { idEnvioFor } from '../../core/pix/apiPixIds';
import { payoutBatchWorkflowId } from '../../workflows/payouts/definitions';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { waitFor } from '../support/env';
import {
  fundByPaidCharge,
  items,
  payoutMerchant,
  sandboxTransfers,
  setFaults,
  signedCall,
  waitForBatchEnd,
} from '../support/payouts';

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
  const idEnvio = idEnvioFor(item.id);
  // The sandbox's own record: sends (Efí's fields) and the transfers of its one store, by idEnvio.
  const sentAtProvider = () =>
    stack.sandbox.state.efiSends.has(idEnvio) ? [stack.sandbox.state.efiSends.get(idEnvio)!] : [];
  const madeAtProvider = () => [...stack.sandbox.state.transfers.values()].filter((t) => t.reference === idEnvio);
  await waitFor(
    async () => sentAtProvider().length === 1,
    'the sandbox to accept the send and lose the answer',
    90_000,
  );

  // Every call now 401: the restart drops the tokens, and the token endpoint refuses our secret.
  await stack.restartSandbox({ pixClientSecret: 'rotated-in-the-wrong-order' });
  await setFaults(stack, null); // the new sandbox starts without faults: only the 401s remain
  // Several retries of the item's activity, each refused (the chunk's pending activity counts them).
  const chunk = stack.temporal.workflow.getHandle(`${payoutBatchWorkflowId(created.body.batchId)}-chunk-0`);
  const attempts = async () =>
    Math.max(0, ...((await chunk.describe()).raw.pendingActivities ?? []).map((a) => a.attempt ?? 0));
  const atRestart = await attempts();
  await waitFor(async () => (await attempts()) >= atRestart + 2, 'two more attempts, each refused with 401', 90_000);
  await item.reload();
  expect(item.status).toBe('SENDING');
  expect(await balance(stack.sequelize, accounts.merchantReserved(merchant.merchantId))).toBe(1_050);
  // Nothing sent again: the retries ask first, and are refused before they can.
  expect(stack.sandbox.state.transferStats.get(idEnvio)).toEqual({ requests: 1, created: 1 });

  await stack.restartSandbox(); // the right secret again
  const batch = await waitForBatchEnd(stack, merchant, created.body.batchId, 90_000);
  expect(batch.status).toBe('COMPLETED');
  await item.reload();
  expect(item.status).toBe('PAID');
  expect(sentAtProvider()).toHaveLength(1);
  expect(madeAtProvider()).toHaveLength(1);
  expect((await sandboxTransfers(stack))[item.id]).toEqual({ requests: 1, created: 1 });
  expect(item.providerTransferId).toBe(idEnvio);
  expect(item.endToEndId).toBe(sentAtProvider()[0].endToEndId);
  expect(await balance(stack.sequelize, accounts.merchantReserved(merchant.merchantId))).toBe(0);
  expect(await balance(stack.sequelize, accounts.merchantAvailable(merchant.merchantId))).toBe(availableBefore - 1_050);
  await assertLedgerInvariant(stack.sequelize);
});
