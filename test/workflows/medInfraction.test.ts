/**
 * The medInfraction workflow on the Java time-skipping test server, with the default 7-day
 * deadline: unanswered, it sends the reminder a day before, then applies the default decision
 * (ACCEPT) and runs the devolução through the refund workflow (child refundLifecycle, whose
 * reservation carries the infraction id so it consumes the block). Answered in time, no reminder
 * and no default; a second answer is refused by the update's validator. Activities are
 * recording fakes: the money moves themselves are proven over HTTP in test/integration/med.test.ts.
 */
import crypto from 'node:crypto';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import {
  decideInfractionUpdate,
  infractionStatusQuery,
  medInfractionWorkflowId,
} from '../../workflows/med/definitions';
import type { MedInfractionInput } from '../../workflows/med/types';
import { useWorkflowEnv } from '../support/workflowEnv';

jest.setTimeout(120_000);

const DAY = 86_400_000;
const wf = useWorkflowEnv();

type Call = [string, unknown];

function fakes(calls: Call[]) {
  const record =
    <T>(name: string, answer: (arg: any) => T) =>
    async (arg: unknown) => {
      // The server's (skipped) time the activity was scheduled at, not the wall clock.
      calls.push([name, { ...(arg as object), at: Context.current().info.scheduledTimestampMs }]);
      return answer(arg);
    };
  return {
    blockMedInfraction: record('block', () => ({ blockedCents: 1_000 })),
    remindMedDeadline: record('remind', () => undefined),
    answerMedAtProvider: record('answer', () => undefined),
    recordMedDecision: record('decide', (a) => ({
      status: a.decision === 'ACCEPT' ? 'ACCEPTED' : 'REJECTED',
      refundId: a.decision === 'ACCEPT' ? a.refundId : null,
      chargeId: 'charge-1',
      amountCents: 1_000,
      reason: 'FRAUD',
    })),
    recordMedRefundOutcome: record('refundOutcome', () => undefined),
    reserveRefund: record('reserveRefund', (a) => ({ refundId: a.refundId, status: 'PROCESSING' })),
    abandonRefundReserve: record('abandonRefundReserve', () => null),
    sendRefund: record('sendRefund', () => 'SUCCEEDED'),
    resolveRefund: record('resolveRefund', () => 'SUCCEEDED'),
  };
}

async function run<T>(calls: Call[], fn: (taskQueue: string) => Promise<T>): Promise<T> {
  return wf.withWorker(fakes(calls), fn, { prefix: 'med' });
}

const input = (now: number): MedInfractionInput => ({
  infractionId: crypto.randomUUID(),
  merchantId: crypto.randomUUID(),
  deadlineAt: new Date(now + 7 * DAY).toISOString(),
  reminderBeforeMs: DAY,
});

it('unanswered for 7 days: reminder a day before, then the default ACCEPT and the devolução through the refund workflow', async () => {
  const calls: Call[] = [];
  const now = Date.now();
  const args = input(now);
  // The test server's clock starts at the wall clock; `now` is when the deadline was set.
  const result = await run(calls, (taskQueue) =>
    wf.env.client.workflow.execute('medInfraction', {
      taskQueue,
      workflowId: medInfractionWorkflowId(args.infractionId),
      args: [args],
    }),
  );
  expect(result).toEqual({ infractionId: args.infractionId, status: 'ACCEPTED' });
  expect(calls.map(([name]) => name)).toEqual([
    'block',
    'remind',
    'answer',
    'decide',
    'reserveRefund',
    'sendRefund',
    'refundOutcome',
  ]);
  const at = (name: string) => (calls.find(([n]) => n === name)![1] as { at: number }).at;
  // Skipped time: the reminder ~6 days in, the decision at the deadline (a minute of slack for the test server's clock).
  expect(at('remind') - now).toBeGreaterThanOrEqual(6 * DAY - 60_000);
  expect(at('remind') - now).toBeLessThan(7 * DAY - 60_000);
  expect(at('decide') - now).toBeGreaterThanOrEqual(7 * DAY - 60_000);
  expect(calls.find(([n]) => n === 'answer')![1]).toMatchObject({
    decision: 'ACCEPT',
    justification: 'no analysis before the deadline',
  });
  expect(calls.find(([n]) => n === 'decide')![1]).toMatchObject({ decision: 'ACCEPT', decidedBy: 'DEFAULT' });
  const reserve = calls.find(([n]) => n === 'reserveRefund')![1] as Record<string, unknown>;
  expect(reserve).toMatchObject({
    chargeId: 'charge-1',
    amountCents: 1_000,
    medInfractionId: args.infractionId,
    requestedBy: null,
  });
  expect(calls.find(([n]) => n === 'refundOutcome')![1]).toMatchObject({
    infractionId: args.infractionId,
    refundStatus: 'SUCCEEDED',
  });
});

it('answered in time (REJECT): no reminder, no default, no refund; a second answer is refused', async () => {
  const calls: Call[] = [];
  const args = input(Date.now());
  await run(calls, async (taskQueue) => {
    const handle = await wf.env.client.workflow.start('medInfraction', {
      taskQueue,
      workflowId: medInfractionWorkflowId(args.infractionId),
      args: [args],
    });
    const userId = crypto.randomUUID();
    await handle.executeUpdate(decideInfractionUpdate, {
      args: [{ decision: 'REJECT', justification: 'goods delivered', decidedBy: userId }],
    });
    expect(await handle.query(infractionStatusQuery)).toBe('REJECTED');
    // Refused by the validator while the workflow runs, or not found once it has closed: never applied.
    const again = await handle
      .executeUpdate(decideInfractionUpdate, {
        args: [{ decision: 'ACCEPT', justification: 'again', decidedBy: userId }],
      })
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(again instanceof WorkflowUpdateFailedError || again instanceof WorkflowNotFoundError).toBe(true);
    expect(await handle.result()).toEqual({ infractionId: args.infractionId, status: 'REJECTED' });
  });
  expect(calls.map(([name]) => name)).toEqual(['block', 'answer', 'decide']);
  expect(calls[1][1]).toMatchObject({ decision: 'REJECT', justification: 'goods delivered' });
});
