/**
 * Lost callbacks heal in minutes: a paid charge whose notification the PSP lost
 * (`callback: false` at the sandbox) is settled by the sweep's Schedule (every minute, GET /pix
 * over the last minutes, the one claim path) within two minutes, exactly once; a later pass finds
 * it taken and moves nothing.
 */
import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { pspChargeRef, txidFor } from '../../core/pix/apiPixIds';
import { Charge } from '../../db/models';
import type { PixSweepResult } from '../../activities/charges/pixSweep';
import { ensurePixSweepSchedule } from '../../workers/ensurePixSweepSchedule';
import { pixSweepScheduleId } from '../../workflows/charges/sweep/definitions';
import { waitFor } from '../support/env';
import { assertLedgerInvariant } from '../support/ledger';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';

jest.setTimeout(240_000);

let stack: IntegrationStack;

beforeAll(async () => {
  // A stack of its own: the sweep would heal the lost callbacks other files lose on purpose.
  stack = await startIntegrationStack();
});

afterAll(async () => {
  await stack?.temporal.schedule
    .getHandle(pixSweepScheduleId(stack.taskQueue))
    .delete()
    .catch(() => undefined);
  await stack?.stop();
});

afterEach(async () => {
  await assertLedgerInvariant(stack.sequelize);
});

async function paidTransactions(chargeId: string): Promise<number> {
  const [row] = await stack.sequelize.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ledger_transactions WHERE movement_key = :k`,
    { replacements: { k: `charge-paid:${chargeId}` }, type: QueryTypes.SELECT },
  );
  return row.n;
}

it('settles a paid charge whose notification was lost within 2 minutes, exactly once', async () => {
  await ensurePixSweepSchedule(stack.temporal, stack.taskQueue);
  await ensurePixSweepSchedule(stack.temporal, stack.taskQueue); // idempotent at every boot
  const schedule = stack.temporal.schedule.getHandle(pixSweepScheduleId(stack.taskQueue));
  expect((await schedule.describe()).action).toMatchObject({
    type: 'startWorkflow',
    workflowType: 'pixPaymentSweep',
    taskQueue: stack.taskQueue,
  });

  const seller = await stack.createMerchant({ name: 'Loja Varredura' });
  const created = await stack.api('POST', '/sellers/pix', {
    creds: seller,
    body: { amountCents: 3_300 },
    headers: { 'x-idempotency-key': crypto.randomUUID() },
  });
  expect(created.status).toBe(201);
  const chargeId = created.body.id as string;
  const paidAt = Date.now();
  const paid = await fetch(`${stack.sandboxUrl}/sandbox/charges/${pspChargeRef(chargeId)}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ callback: false }),
  });
  expect(paid.status).toBe(200);
  const endToEndId = ((await paid.json()) as { endToEndId: string }).endToEndId;

  await waitFor(
    async () => (await Charge.findByPk(chargeId))?.status === 'PAID',
    'the sweep to settle the charge',
    130_000,
  );
  expect(Date.now() - paidAt).toBeLessThan(120_000);
  // No notification was ever sent: the sweep found it.
  expect(stack.sandbox.state.callbacks.filter((c) => c.chargeId === txidFor(chargeId))).toEqual([]);
  expect(await paidTransactions(chargeId)).toBe(1);
  const [event] = await stack.sequelize.query<{ outcome: string }>(
    `SELECT outcome FROM provider_events WHERE id = :id`,
    { replacements: { id: `pix:${endToEndId}` }, type: QueryTypes.SELECT },
  );
  expect(event.outcome).toBe('SIGNALLED');

  // Another pass finds the Pix taken: nothing moves.
  const before = (await schedule.describe()).info.recentActions.length;
  await schedule.trigger();
  const action = await waitFor(async () => {
    const actions = (await schedule.describe()).info.recentActions;
    return actions.length > before ? actions[actions.length - 1] : null;
  }, 'the triggered pass to start');
  const result = (await stack.temporal.workflow
    .getHandle(action.action.workflow.workflowId, action.action.workflow.firstExecutionRunId)
    .result()) as PixSweepResult;
  expect(result).toMatchObject({ taken: 0 });
  expect(result.listed).toBeGreaterThanOrEqual(1);
  expect(await paidTransactions(chargeId)).toBe(1);
});
