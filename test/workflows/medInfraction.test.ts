/**
 * The medInfraction workflow on the Java time-skipping test server, with the PSP's 7-day
 * deadline: unanswered, it sends the alerts 48, 24 and 6 hours before it, then (15 minutes before
 * the deadline, which the PSP enforces) answers with what the case has: the default decision
 * (ACCEPT), whose devolução runs through the refund workflow (child refundLifecycle, whose
 * reservation carries the infraction id so it consumes the block), or the stored defence (REJECT
 * with its text). A case read with 5 hours left gets only the 6 h alert. Answered in time, no
 * alert and no default; a second answer is refused by the update's validator. MED 2.0: a defence
 * (REJECT) leaves the case IN_DEFENCE until the PSP's outcome (pspOutcome signal): UPHELD → the
 * devolução as after an ACCEPT, DISMISSED or CANCELLED → released; a CANCELLED while OPEN ends the
 * case without an answer. Activities are recording fakes: the money moves themselves are proven
 * over HTTP in test/integration/med.test.ts.
 */
import crypto from 'node:crypto';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import {
  decideInfractionUpdate,
  infractionStatusQuery,
  medInfractionWorkflowId,
  pspOutcomeSignal,
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
      status: a.decision === 'ACCEPT' ? 'ACCEPTED' : a.pspDecides ? 'IN_DEFENCE' : 'REJECTED',
      refundId: a.decision === 'ACCEPT' ? a.refundId : null,
      chargeId: 'charge-1',
      amountCents: 1_000,
      reason: 'FRAUD',
    })),
    recordMedPspOutcome: record('pspOutcome', (a) => ({
      status: { UPHELD: 'ACCEPTED', DISMISSED: 'REJECTED', CANCELLED: 'CANCELLED' }[a.outcome as string],
      refundId: a.outcome === 'UPHELD' ? a.refundId : null,
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

it('answered in time (REJECT): no reminder, no default; IN_DEFENCE until the PSP dismisses it, no refund; a second answer is refused', async () => {
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
    expect(await handle.query(infractionStatusQuery)).toBe('IN_DEFENCE');
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
    await handle.signal(pspOutcomeSignal, { outcome: 'DISMISSED' });
    expect(await handle.result()).toEqual({ infractionId: args.infractionId, status: 'REJECTED' });
  });
  expect(calls.map(([name]) => name)).toEqual(['block', 'answer', 'decide', 'pspOutcome']);
  expect(calls[1][1]).toMatchObject({ decision: 'REJECT', justification: 'goods delivered' });
  expect(calls[2][1]).toMatchObject({ decision: 'REJECT', pspDecides: true });
  expect(calls[3][1]).toMatchObject({ infractionId: args.infractionId, outcome: 'DISMISSED' });
});

it('read with 5 hours left: only the 6 h alert, at once; unanswered, the stored defence is sent (REJECT with its text), no devolução', async () => {
  const calls: Call[] = [];
  // The file's test server kept the time earlier tests skipped: its clock, not the wall clock.
  const now = await wf.env.currentTimeMs();
  const args = { ...input(now), deadlineAt: new Date(now + 5 * HOUR).toISOString() };
  const defence = { decision: 'REJECT', justification: 'goods delivered, tracking BR123', decidedBy: 'DEFAULT' };
  const result = await run(
    calls,
    async (taskQueue) => {
      // The PSP's dismissal signalled before the defence is even sent (a sync that read it first):
      // kept, and applied once the case is in defence.
      const handle = await wf.env.client.workflow.signalWithStart('medInfraction', {
        taskQueue,
        workflowId: medInfractionWorkflowId(args.infractionId),
        args: [args],
        signal: pspOutcomeSignal,
        signalArgs: [{ outcome: 'DISMISSED' }],
      });
      return handle.result();
    },
    defence,
  );
  expect(result).toEqual({ infractionId: args.infractionId, status: 'REJECTED' });
  expect(calls.map(([name]) => name)).toEqual(['block', 'alert', 'atDeadline', 'answer', 'decide', 'pspOutcome']);
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
    await handle.signal(pspOutcomeSignal, { outcome: 'DISMISSED' });
    await handle.result();
  });
  expect(calls.map(([name]) => name)).toEqual(['block', 'alert', 'answer', 'decide', 'pspOutcome']);
  expect(calls[1][1]).toMatchObject({ hoursLeft: 48 });
});

/** Starts a case, defends it (REJECT by a user), and answers the handle once it is IN_DEFENCE. */
async function defended(taskQueue: string, args: MedInfractionInput) {
  const handle = await wf.env.client.workflow.start('medInfraction', {
    taskQueue,
    workflowId: medInfractionWorkflowId(args.infractionId),
    args: [args],
  });
  await handle.executeUpdate(decideInfractionUpdate, {
    args: [{ decision: 'REJECT', justification: 'goods delivered', decidedBy: crypto.randomUUID() }],
  });
  expect(await handle.query(infractionStatusQuery)).toBe('IN_DEFENCE');
  return handle;
}

it('defended, then upheld by the PSP 60 days later: the devolução as after an ACCEPT (refund workflow, once), with a bounded history', async () => {
  const calls: Call[] = [];
  const args = input(await wf.env.currentTimeMs());
  await run(calls, async (taskQueue) => {
    const handle = await defended(taskQueue, args);
    // The case waits with no timer: days pass, nothing runs.
    await wf.env.sleep(60 * DAY);
    expect(await handle.query(infractionStatusQuery)).toBe('IN_DEFENCE');
    await handle.signal(pspOutcomeSignal, { outcome: 'UPHELD' });
    // A later sync that saw it again: ignored, the first outcome counts.
    await handle.signal(pspOutcomeSignal, { outcome: 'UPHELD' });
    expect(await handle.result()).toEqual({ infractionId: args.infractionId, status: 'ACCEPTED' });
    // The whole case (block, alert timers, update, answer, the wait, the devolução child): a few
    // dozen events whatever the days in defence; no timer was started while it waited.
    const { events } = await handle.fetchHistory();
    expect(events!.length).toBeLessThan(100);
  });
  expect(calls.map(([name]) => name)).toEqual([
    'block',
    'answer',
    'decide',
    'pspOutcome',
    'reserveRefund',
    'sendRefund',
    'refundOutcome',
  ]);
  const outcome = calls.find(([n]) => n === 'pspOutcome')![1] as { refundId: string };
  expect(outcome).toMatchObject({ infractionId: args.infractionId, outcome: 'UPHELD' });
  // The devolução is the one recordMedPspOutcome set, asked by no user of ours.
  expect(calls.find(([n]) => n === 'reserveRefund')![1]).toMatchObject({
    refundId: outcome.refundId,
    amountCents: 1_000,
    medInfractionId: args.infractionId,
    requestedBy: null,
  });
  expect(calls.find(([n]) => n === 'refundOutcome')![1]).toMatchObject({ refundStatus: 'SUCCEEDED' });
});

it('defended, then cancelled by the PSP: released (CANCELLED), no devolução', async () => {
  const calls: Call[] = [];
  const args = input(await wf.env.currentTimeMs());
  await run(calls, async (taskQueue) => {
    const handle = await defended(taskQueue, args);
    await handle.signal(pspOutcomeSignal, { outcome: 'CANCELLED' });
    expect(await handle.result()).toEqual({ infractionId: args.infractionId, status: 'CANCELLED' });
  });
  expect(calls.map(([name]) => name)).toEqual(['block', 'answer', 'decide', 'pspOutcome']);
  expect(calls[3][1]).toMatchObject({ outcome: 'CANCELLED' });
});

it('cancelled by the PSP while OPEN: ended released at once, never answered, no alert; a later answer is refused', async () => {
  const calls: Call[] = [];
  const args = input(await wf.env.currentTimeMs());
  await run(calls, async (taskQueue) => {
    const handle = await wf.env.client.workflow.start('medInfraction', {
      taskQueue,
      workflowId: medInfractionWorkflowId(args.infractionId),
      args: [args],
    });
    // An UPHELD or DISMISSED of a case never answered changes nothing; a CANCELLED ends it.
    await handle.signal(pspOutcomeSignal, { outcome: 'CANCELLED' });
    expect(await handle.result()).toEqual({ infractionId: args.infractionId, status: 'CANCELLED' });
    const late = await handle
      .executeUpdate(decideInfractionUpdate, {
        args: [{ decision: 'REJECT', justification: 'late', decidedBy: crypto.randomUUID() }],
      })
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(late instanceof WorkflowUpdateFailedError || late instanceof WorkflowNotFoundError).toBe(true);
  });
  expect(calls.map(([name]) => name)).toEqual(['block', 'pspOutcome']);
  expect(calls[1][1]).toMatchObject({ infractionId: args.infractionId, outcome: 'CANCELLED' });
});

it("the merchant's ACCEPT stays as it was: the devolução at once, a PSP outcome signalled later is ignored", async () => {
  const calls: Call[] = [];
  const args = input(await wf.env.currentTimeMs());
  await run(calls, async (taskQueue) => {
    const handle = await wf.env.client.workflow.start('medInfraction', {
      taskQueue,
      workflowId: medInfractionWorkflowId(args.infractionId),
      args: [args],
    });
    const userId = crypto.randomUUID();
    await handle.executeUpdate(decideInfractionUpdate, {
      args: [{ decision: 'ACCEPT', justification: 'fraud confirmed', decidedBy: userId }],
    });
    await handle.signal(pspOutcomeSignal, { outcome: 'UPHELD' }).catch(() => undefined);
    expect(await handle.result()).toEqual({ infractionId: args.infractionId, status: 'ACCEPTED' });
    expect(calls.find(([n]) => n === 'reserveRefund')![1]).toMatchObject({ requestedBy: userId });
  });
  expect(calls.map(([name]) => name)).toEqual([
    'block',
    'answer',
    'decide',
    'reserveRefund',
    'sendRefund',
    'refundOutcome',
  ]);
});
