/**
 * The medInfraction workflow on the Java time-skipping test server, with the PSP's 7-day
 * deadline: unanswered, it sends the alerts 48, 24 and 6 hours before it, then (15 minutes before
 * the deadline, which the PSP enforces) answers with what the case has: the default decision
 * (ACCEPT), whose devolução runs through the refund workflow (child refundLifecycle, whose
 * reservation carries the infraction id so it consumes the block), or the stored defence (REJECT
 * with its text). A case read with 5 hours left gets only the 6 h alert. Answered in time, no
 * alert and no default; a second answer is refused by the update's validator. Activities are
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

const HOUR = 3_600_000;

function fakes(calls: Call[], atDeadline: { decision: string; justification: string; decidedBy: string } = DEFAULT) {
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
    alertMedDeadline: record('alert', () => ({ sent: true })),
    decisionAtDeadline: record('atDeadline', () => atDeadline),
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

const DEFAULT = { decision: 'ACCEPT', justification: 'no analysis before the deadline', decidedBy: 'DEFAULT' };

async function run<T>(
  calls: Call[],
  fn: (taskQueue: string) => Promise<T>,
  atDeadline: typeof DEFAULT = DEFAULT,
): Promise<T> {
  return wf.withWorker(fakes(calls, atDeadline), fn, { prefix: 'med' });
}

const at = (calls: Call[], name: string, nth = 0) => (calls.filter(([n]) => n === name)[nth][1] as { at: number }).at;

const input = (now: number): MedInfractionInput => ({
  infractionId: crypto.randomUUID(),
  merchantId: crypto.randomUUID(),
  deadlineAt: new Date(now + 7 * DAY).toISOString(),
  reminderBeforeMs: DAY,
});

it('unanswered for 7 days: alerts 48, 24 and 6 h before the deadline, then the default ACCEPT just before it and the devolução through the refund workflow', async () => {
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
    'alert',
    'alert',
    'alert',
    'atDeadline',
    'answer',
    'decide',
    'reserveRefund',
    'sendRefund',
    'refundOutcome',
  ]);
  const deadline = Date.parse(args.deadlineAt);
  // Skipped time: each alert at its lead before the deadline (a minute of slack for the test server's clock).
  for (const [nth, hours] of [48, 24, 6].entries()) {
    expect(calls.filter(([n]) => n === 'alert')[nth][1]).toMatchObject({ hoursLeft: hours });
    expect(Math.abs(at(calls, 'alert', nth) - (deadline - hours * HOUR))).toBeLessThan(60_000);
  }
  // The answer 15 minutes before the PSP's deadline (after it the PSP refuses a defence).
  expect(Math.abs(at(calls, 'answer') - (deadline - 15 * 60_000))).toBeLessThan(60_000);
  expect(at(calls, 'answer')).toBeLessThan(deadline);
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

it('read with 5 hours left: only the 6 h alert, at once; unanswered, the stored defence is sent (REJECT with its text), no devolução', async () => {
  const calls: Call[] = [];
  // The file's test server kept the time earlier tests skipped: its clock, not the wall clock.
  const now = await wf.env.currentTimeMs();
  const args = { ...input(now), deadlineAt: new Date(now + 5 * HOUR).toISOString() };
  const defence = { decision: 'REJECT', justification: 'goods delivered, tracking BR123', decidedBy: 'DEFAULT' };
  const result = await run(
    calls,
    (taskQueue) =>
      wf.env.client.workflow.execute('medInfraction', {
        taskQueue,
        workflowId: medInfractionWorkflowId(args.infractionId),
        args: [args],
      }),
    defence,
  );
  expect(result).toEqual({ infractionId: args.infractionId, status: 'REJECTED' });
  expect(calls.map(([name]) => name)).toEqual(['block', 'alert', 'atDeadline', 'answer', 'decide']);
  expect(calls[1][1]).toMatchObject({ infractionId: args.infractionId, hoursLeft: 6 });
  expect(at(calls, 'alert') - now).toBeLessThan(60_000);
  expect(calls[3][1]).toMatchObject({ decision: 'REJECT', justification: 'goods delivered, tracking BR123' });
  expect(calls[4][1]).toMatchObject({ decision: 'REJECT', decidedBy: 'DEFAULT' });
  expect(at(calls, 'answer')).toBeLessThan(Date.parse(args.deadlineAt));
});

it('answered between the alerts: the 48 h alert went, the 24 and 6 h ones do not', async () => {
  const calls: Call[] = [];
  const now = await wf.env.currentTimeMs();
  const args = input(now);
  await run(calls, async (taskQueue) => {
    const handle = await wf.env.client.workflow.start('medInfraction', {
      taskQueue,
      workflowId: medInfractionWorkflowId(args.infractionId),
      args: [args],
    });
    // Skip to 30 hours before the deadline: the 48 h alert is due, the 24 h one is not.
    await wf.env.sleep(7 * DAY - 30 * HOUR);
    await handle.executeUpdate(decideInfractionUpdate, {
      args: [{ decision: 'REJECT', justification: 'goods delivered', decidedBy: crypto.randomUUID() }],
    });
    await handle.result();
  });
  expect(calls.map(([name]) => name)).toEqual(['block', 'alert', 'answer', 'decide']);
  expect(calls[1][1]).toMatchObject({ hoursLeft: 48 });
});
