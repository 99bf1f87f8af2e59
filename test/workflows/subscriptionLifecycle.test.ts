/**
 * The subscription's workflow (issue 39) on the Java time-skipping test server, a year of cycles
 * in skipped time. Activities are in-memory fakes of SubscriptionActivities over a fake PSP whose
 * rec and cobrs the test scripts: each cobr's attempts are scheduled by the payer's PSP for their
 * date and resolve (paid, rejected with a code, or held) once that day's evening has come. What is
 * asserted is what the workflow did with them: the states and events it recorded per cycle, when
 * it sent each cobr (inside core's issue window), the retries it asked for (at most 3, each on a
 * later date), that the history stays one cycle long (continue-as-new), and what a rec the PSP
 * will not create does to prepareSubscription and to the subscription. The activities
 * themselves (rows, ledger, the PSP over HTTP) are tested where they are written.
 */
import crypto from 'node:crypto';
import { Context } from '@temporalio/activity';
import { WorkflowFailedError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type {
  RecurrenceReading,
  SubscriptionActivities,
  SubscriptionEventName,
} from '../../activities/subscriptions/contract';
import { addDays } from '../../core/boletos/dates';
import { cycleDue, periodicidadeOf, type RecCalendar } from '../../core/subscriptions/calendar';
import { brasiliaDate, issueWindow } from '../../core/subscriptions/issueWindow';
import { rejectsWholeCobr, type Attempt, type CobrOutcome, type RetryPolicy } from '../../core/subscriptions/retries';
import type { CancelledBy, SubscriptionState } from '../../core/subscriptions/states';
import {
  cancelSubscriptionUpdate,
  prepareSubscriptionUpdate,
  recurrenceNoticeSignal,
  subscriptionStatusQuery,
  subscriptionWorkflowId,
} from '../../workflows/subscriptions/definitions';
import type {
  SubscriptionJourney,
  SubscriptionLifecycleInput,
  SubscriptionStatusView,
} from '../../workflows/subscriptions/types';
import { useWorkflowEnv } from '../support/workflowEnv';

jest.setTimeout(180_000);

const wf = useWorkflowEnv();

/** How the payer's PSP ends an attempt: paid, rejected with a code, or still scheduled. */
type AttemptOutcome = 'PAGA' | 'HOLD' | { rejected: string };
type Script = (cycle: number, attempt: number) => AttemptOutcome;

interface Recorded {
  state: SubscriptionState;
  event: SubscriptionEventName | null;
  cycle: number | null;
  cancelledBy?: CancelledBy | null;
  endingCode?: string | null;
}

interface FakeCycle {
  txid: string;
  settlementDate: string;
  issuedAtMs: number;
  attempts: Attempt[];
  cobr: CobrOutcome;
  /** When each retry was asked for, and for which date. */
  retries: { date: string; askedAtMs: number }[];
}

/** The PSP side the test scripts, and what the workflow asked of it. */
class FakePsp {
  rec: Omit<RecurrenceReading, 'endingCode'> & { endingCode: string | null } = {
    status: 'APPROVED',
    cancelledBy: null,
    endingCode: null,
    firstCharge: null,
  };
  readonly cycles = new Map<number, FakeCycle>();
  readonly states: Recorded[] = [];
  readonly failed: { cycle: number; reason: string; rejectionCode: string | null }[] = [];
  readonly calls: string[] = [];
  recReads = 0;
  /** createRecurrence refused by the PSP (a non-retryable failure of the activity). */
  createFails = false;
  /** How many retry requests the PSP refuses before accepting them (a non-retryable failure). */
  refuseRetries = 0;
  refusedRetries: string[] = [];
  /** Called as each cobr is issued (the test's hook to act mid-cycle). */
  onIssue: (cycle: number) => void = () => undefined;
  /** Called on each GET /rec, before answering (the test's hook to move the rec). */
  onReadRec: (read: number) => void = () => undefined;

  constructor(private readonly script: Script) {}

  activities(): SubscriptionActivities {
    const call = (name: string) => this.calls.push(name);
    return {
      recordSubscription: async () => void call('recordSubscription'),
      createRecurrence: async ({ subscriptionId }) => {
        call('createRecurrence');
        if (this.createFails) throw ApplicationFailure.nonRetryable('the PSP refused the rec', 'PspRefused');
        return {
          subscriptionId,
          idRec: `RR1234567820270115${subscriptionId.replace(/-/g, '').slice(0, 11)}`,
          state: 'AWAITING_AUTHORISATION',
          qrCopyPaste: '00020101021226...',
          authorizationRequestId: null,
        };
      },
      readRecurrence: async () => {
        call('readRecurrence');
        this.onReadRec(++this.recReads);
        return { ...this.rec };
      },
      recordSubscriptionState: async (args) => {
        call('recordSubscriptionState');
        const { subscriptionId: _, ...recorded } = args;
        this.states.push(recorded);
      },
      recordFirstCycle: async () => void call('recordFirstCycle'),
      issueCycle: async ({ cycle, settlementDate }) => {
        call('issueCycle');
        const txid = `cobr${cycle}x${crypto.randomUUID().replace(/-/g, '')}`.slice(0, 35);
        this.cycles.set(cycle, {
          txid,
          settlementDate,
          issuedAtMs: now(),
          // The payer's PSP schedules the first attempt for the settlement date.
          attempts: [{ date: settlementDate, status: 'AGENDADA' }],
          cobr: { status: 'ATIVA' },
          retries: [],
        });
        this.onIssue(cycle);
        return { txid, chargeId: crypto.randomUUID() };
      },
      readCycle: async ({ cycle }) => {
        call('readCycle');
        const c = this.cobr(cycle);
        this.resolveDue(cycle, c);
        return { cobr: { ...c.cobr }, attempts: c.attempts.map((a) => ({ ...a })) };
      },
      requestCycleRetry: async ({ cycle, date }) => {
        call('requestCycleRetry');
        if (this.refusedRetries.length < this.refuseRetries) {
          this.refusedRetries.push(date);
          throw ApplicationFailure.nonRetryable('the PSP refused the retry', 'PspRefused');
        }
        const c = this.cobr(cycle);
        c.retries.push({ date, askedAtMs: now() });
        c.attempts.push({ date, status: 'AGENDADA' });
      },
      settleCycle: async ({ cycle }) => {
        call('settleCycle');
        return { outcome: this.cobr(cycle).cobr.status === 'CONCLUIDA' ? 'SETTLED' : 'NOT_CONFIRMED' };
      },
      failCycle: async ({ cycle, reason, rejectionCode }) => {
        call('failCycle');
        this.failed.push({ cycle, reason, rejectionCode });
      },
      cancelAtProvider: async () => {
        call('cancelAtProvider');
        this.rec = { ...this.rec, status: 'CANCELLED', cancelledBy: 'MERCHANT' };
      },
    };
  }

  private cobr(cycle: number): FakeCycle {
    const c = this.cycles.get(cycle);
    if (!c) throw ApplicationFailure.nonRetryable(`cycle ${cycle} was never issued`, 'Test');
    return c;
  }

  /** Attempts whose evening (18:00 Brasília, the payer PSP's tries) has come end as scripted. */
  private resolveDue(cycle: number, c: FakeCycle): void {
    c.attempts.forEach((attempt, index) => {
      if (attempt.status !== 'AGENDADA' || now() < Date.parse(`${attempt.date}T18:00:00-03:00`)) return;
      const outcome = this.script(cycle, index);
      if (outcome === 'HOLD') return;
      if (outcome === 'PAGA') {
        attempt.status = 'PAGA';
        c.cobr = { status: 'CONCLUIDA' };
        return;
      }
      attempt.status = 'REJEITADA';
      attempt.rejectionCode = outcome.rejected;
      if (rejectsWholeCobr(outcome.rejected)) c.cobr = { status: 'REJEITADA', rejectionCode: outcome.rejected };
    });
  }
}

/** The server's (skipped) time the running activity was scheduled at, not the wall clock. */
function now(): number {
  return Context.current().info.currentAttemptScheduledTimestampMs;
}

function input(overrides: Partial<SubscriptionLifecycleInput> & { firstDueDate: string }): SubscriptionLifecycleInput {
  return {
    subscriptionId: crypto.randomUUID(),
    merchantId: crypto.randomUUID(),
    courseId: crypto.randomUUID(),
    priceId: crypto.randomUUID(),
    courseTitle: 'Curso de Violão',
    journey: 'JOURNEY_3',
    interval: 'MONTHLY',
    retryPolicy: 'PERMITE_3R_7D',
    amountCents: 4_990,
    lastDueDate: null,
    payer: { name: 'Bia Souza', document: '52998224725' },
    payerAccount: null,
    firstChargeId: null,
    externalId: null,
    metadata: {},
    returnUrl: null,
    idempotencyKey: null,
    ...overrides,
  };
}

function calendarOf(args: SubscriptionLifecycleInput): RecCalendar {
  return {
    dataInicial: args.firstDueDate,
    periodicidade: periodicidadeOf(args.interval),
    ...(args.lastDueDate ? { dataFinal: args.lastDueDate } : {}),
  };
}

/** Starts the run the way the API does (the start, then prepareSubscription, answered once the rec exists). */
async function startAndPrepare(taskQueue: string, args: SubscriptionLifecycleInput) {
  const handle = await wf.env.client.workflow.start('subscriptionLifecycle', {
    taskQueue,
    workflowId: subscriptionWorkflowId(args.subscriptionId),
    args: [args],
  });
  const prepared = await handle.executeUpdate(prepareSubscriptionUpdate);
  return { handle, prepared };
}

function run<T>(psp: FakePsp, fn: (taskQueue: string) => Promise<T>): Promise<T> {
  return wf.withWorker(psp.activities(), fn, { prefix: 'subscription' });
}

/** 10:00 in Brasília on the next 15 January after the server's clock: a fixed calendar, in the future. */
async function nextJanuary15(): Promise<number> {
  const serverNow = await wf.env.currentTimeMs();
  for (let year = new Date(serverNow).getUTCFullYear(); ; year++) {
    const at = Date.parse(`${year}-01-15T10:00:00-03:00`);
    if (at > serverNow) return at;
  }
}

async function serverToday(): Promise<string> {
  return brasiliaDate(await wf.env.currentTimeMs());
}

const noneRejected: Script = (_cycle, _attempt) => 'PAGA';

it('journey 3, monthly, a year: cycle 3 healed by a retry (PAST_DUE, ACTIVE), cycle 6 failed for good (SUSPENDED), cycle 7 paid restores ACTIVE; each cobr sent inside its window, retries on later dates', async () => {
  const startAt = await nextJanuary15();
  await wf.env.sleep(startAt - (await wf.env.currentTimeMs()));
  const firstDueDate = brasiliaDate(startAt);
  const twelve = cycleDue({ dataInicial: firstDueDate, periodicidade: 'MENSAL' }, 12).dueDate;
  const args = input({ journey: 'JOURNEY_3', firstDueDate, lastDueDate: twelve, firstChargeId: crypto.randomUUID() });
  const psp = new FakePsp((cycle, attempt) => {
    if (cycle === 3) return attempt === 0 ? { rejected: 'AM02' } : 'PAGA';
    if (cycle === 6) return { rejected: 'AM02' };
    return 'PAGA';
  });
  // Approved at once, the first charge seen PAID on the second reading (the short poll).
  psp.rec = { status: 'APPROVED', cancelledBy: null, endingCode: null, firstCharge: 'PENDING' };
  psp.onReadRec = (read) => {
    if (read >= 2) psp.rec.firstCharge = 'PAID';
  };

  const result = await run(psp, async (taskQueue) => {
    const { handle, prepared } = await startAndPrepare(taskQueue, args);
    expect(prepared).toMatchObject({ subscriptionId: args.subscriptionId, state: 'AWAITING_AUTHORISATION' });
    return handle.result();
  });

  expect(result).toMatchObject({ state: 'ACTIVE', cycle: 13, cancelledBy: null });
  expect(psp.calls.slice(0, 6)).toEqual([
    'recordSubscription',
    'createRecurrence',
    'readRecurrence',
    'readRecurrence',
    'recordFirstCycle',
    'recordSubscriptionState',
  ]);
  const paid = (cycle: number): Recorded => ({ state: 'ACTIVE', event: 'subscription.cycle.paid', cycle });
  expect(psp.states).toEqual([
    { state: 'ACTIVE', event: 'subscription.authorised', cycle: null },
    paid(1),
    paid(2),
    { state: 'PAST_DUE', event: null, cycle: 3 },
    paid(3),
    paid(4),
    paid(5),
    { state: 'PAST_DUE', event: null, cycle: 6 },
    { state: 'SUSPENDED', event: 'subscription.cycle.failed', cycle: 6 },
    ...[7, 8, 9, 10, 11, 12].map(paid),
  ]);
  expect(psp.failed).toEqual([{ cycle: 6, reason: 'RETRIES_EXHAUSTED', rejectionCode: null }]);
  // GET /rec: twice while authorising, then once at the start of each continued run that charges a
  // cycle (3 to 12): a notice lost as a run continued cannot hide a cancel.
  expect(psp.recReads).toBe(12);

  // Cycles 2 to 12, each sent when core's window says (9 days before, 09:00), never outside it.
  expect([...psp.cycles.keys()]).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  const calendar = calendarOf(args);
  for (const [cycle, c] of psp.cycles) {
    const due = cycleDue(calendar, cycle);
    expect(c.settlementDate).toBe(due.settlementDate);
    const window = issueWindow(due.settlementDate);
    expect(c.issuedAtMs).toBeGreaterThanOrEqual(Date.parse(window.opensAt));
    expect(c.issuedAtMs).toBeLessThanOrEqual(Date.parse(window.latestAt));
    expect(Math.abs(c.issuedAtMs - Date.parse(window.issueAt))).toBeLessThan(60_000);
  }

  // Retries: one for cycle 3, three for cycle 6; each asked before its day, each on a later date.
  expect(psp.cycles.get(3)!.retries).toHaveLength(1);
  expect(psp.cycles.get(6)!.retries).toHaveLength(3);
  for (const [, c] of psp.cycles) {
    expect(c.retries.length).toBeLessThanOrEqual(3);
    let previous = c.settlementDate;
    for (const retry of c.retries) {
      expect(retry.date > previous).toBe(true);
      expect(brasiliaDate(retry.askedAtMs) < retry.date).toBe(true);
      expect(retry.date <= addDays(c.settlementDate, 7)).toBe(true);
      previous = retry.date;
    }
  }
});

it('journey 2: authorised, then the payer cancels the rec mid-cycle (notice, GET /rec CANCELLED) → CANCELLED by PAYER, nothing issued after', async () => {
  const today = await serverToday();
  const args = input({ journey: 'JOURNEY_2', firstDueDate: addDays(today, 12) });
  // Cycle 1's attempt stays scheduled: only the payer's cancel decides what happens.
  const psp = new FakePsp(() => 'HOLD');
  let notify: () => void = () => undefined;
  psp.onIssue = () => {
    psp.rec = { ...psp.rec, status: 'CANCELLED', cancelledBy: 'PAYER', endingCode: 'ACCL' };
    setImmediate(notify);
  };
  const result = await run(psp, async (taskQueue) => {
    const { handle } = await startAndPrepare(taskQueue, args);
    notify = () => void handle.signal(recurrenceNoticeSignal);
    return handle.result();
  });
  expect(result).toMatchObject({ state: 'CANCELLED', cycle: 1, cancelledBy: 'PAYER' });
  expect(psp.states).toEqual([
    { state: 'AUTHORISED', event: 'subscription.authorised', cycle: null },
    { state: 'CANCELLED', event: 'subscription.cancelled', cycle: null, cancelledBy: 'PAYER', endingCode: 'ACCL' },
  ]);
  expect([...psp.cycles.keys()]).toEqual([1]);
  expect(psp.calls).not.toContain('cancelAtProvider');
  expect(psp.calls).not.toContain('settleCycle');
});

it("the merchant cancels (cancelSubscription): the rec cancelled at the PSP, CANCELLED by MERCHANT in the update's answer; a second cancel is refused", async () => {
  const today = await serverToday();
  const args = input({ journey: 'JOURNEY_2', firstDueDate: addDays(today, 20) });
  const psp = new FakePsp(noneRejected);
  await run(psp, async (taskQueue) => {
    const { handle } = await startAndPrepare(taskQueue, args);
    // Waiting for its first issue instant (days away; the clock does not skip while we query).
    for (let i = 0; (await handle.query(subscriptionStatusQuery)).state !== 'AUTHORISED'; i++) {
      if (i > 100) throw new Error('never AUTHORISED');
      await new Promise((r) => setTimeout(r, 50));
    }
    const view: SubscriptionStatusView = await handle.executeUpdate(cancelSubscriptionUpdate);
    expect(view).toMatchObject({ state: 'CANCELLED', cancelledBy: 'MERCHANT' });
    const again = await handle.executeUpdate(cancelSubscriptionUpdate).then(
      () => null,
      (err: unknown) => err,
    );
    // Refused by the validator while the run is still closing, or not found once it has closed: never applied.
    expect(again instanceof WorkflowUpdateFailedError || again instanceof WorkflowNotFoundError).toBe(true);
    if (again instanceof WorkflowUpdateFailedError)
      expect((again.cause as ApplicationFailure).type).toBe('SubscriptionAlreadyEnded');
    expect(await handle.result()).toMatchObject({ state: 'CANCELLED', cancelledBy: 'MERCHANT' });
  });
  expect(psp.calls.filter((c) => c === 'cancelAtProvider')).toHaveLength(1);
  expect(psp.states).toEqual([
    { state: 'AUTHORISED', event: 'subscription.authorised', cycle: null },
    { state: 'CANCELLED', event: 'subscription.cancelled', cycle: null, cancelledBy: 'MERCHANT' },
  ]);
  expect(psp.cycles.size).toBe(0);
});

it('NAO_PERMITE: the first rejected attempt fails the cycle (no retry asked), SUSPENDED', async () => {
  const today = await serverToday();
  const firstDueDate = addDays(today, 12);
  const args = input({
    journey: 'JOURNEY_1',
    firstDueDate,
    lastDueDate: firstDueDate,
    retryPolicy: 'NAO_PERMITE' satisfies RetryPolicy,
    payerAccount: { ispb: '99999008', branch: '0001', account: '123456' },
  });
  const psp = new FakePsp(() => ({ rejected: 'AM02' }));
  const result = await run(psp, async (taskQueue) => (await startAndPrepare(taskQueue, args)).handle.result());
  expect(result).toMatchObject({ state: 'SUSPENDED', cycle: 2 });
  expect(psp.calls).not.toContain('requestCycleRetry');
  expect(psp.failed).toEqual([{ cycle: 1, reason: 'RETRIES_NOT_ALLOWED', rejectionCode: null }]);
  expect(psp.states).toEqual([
    { state: 'AUTHORISED', event: 'subscription.authorised', cycle: null },
    { state: 'SUSPENDED', event: 'subscription.cycle.failed', cycle: 1 },
  ]);
});

it('continues as new after each cycle: every run of a 4-cycle subscription keeps a short history', async () => {
  const today = await serverToday();
  const firstDueDate = addDays(today, 12);
  const journey: SubscriptionJourney = 'JOURNEY_2';
  const args = input({
    journey,
    firstDueDate,
    lastDueDate: cycleDue({ dataInicial: firstDueDate, periodicidade: 'MENSAL' }, 4).dueDate,
  });
  const psp = new FakePsp(noneRejected);
  const firstRunId = await run(psp, async (taskQueue) => {
    const { handle } = await startAndPrepare(taskQueue, args);
    await handle.result();
    return handle.firstExecutionRunId;
  });
  expect(psp.cycles.size).toBe(4);

  // Follow the chain of runs: one per cycle, then the one that finds the term over.
  const lengths: number[] = [];
  for (let runId: string | null | undefined = firstRunId; runId;) {
    const { events } = await wf.client.workflow
      .getHandle(subscriptionWorkflowId(args.subscriptionId), runId)
      .fetchHistory();
    lengths.push(events!.length);
    runId = events![events!.length - 1].workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
  }
  expect(lengths).toHaveLength(5);
  // A cycle's run: a few timers, issue, read, settle, record (≈ 40 events); never the whole year.
  for (const length of lengths) expect(length).toBeLessThan(80);
});

it("the PSP will not create the rec: prepareSubscription fails (SubscriptionNotPrepared, the PSP's failure as its cause) and the subscription ends EXPIRED", async () => {
  const today = await serverToday();
  const args = input({ journey: 'JOURNEY_2', firstDueDate: addDays(today, 12) });
  const psp = new FakePsp(noneRejected);
  psp.createFails = true;
  const { failure, result } = await run(psp, async (taskQueue) => {
    const handle = await wf.env.client.workflow.start('subscriptionLifecycle', {
      taskQueue,
      workflowId: subscriptionWorkflowId(args.subscriptionId),
      args: [args],
    });
    const failure = await handle.executeUpdate(prepareSubscriptionUpdate).then(
      () => null,
      (err: unknown) => err,
    );
    return { failure, result: await handle.result() };
  });
  expect(failure).toBeInstanceOf(WorkflowUpdateFailedError);
  const cause = (failure as WorkflowUpdateFailedError).cause as ApplicationFailure;
  expect(cause.type).toBe('SubscriptionNotPrepared');
  expect((cause.cause as ApplicationFailure).type).toBe('PspRefused');
  expect(result).toMatchObject({ state: 'EXPIRED', idRec: null });
  expect(psp.states).toEqual([{ state: 'EXPIRED', event: 'subscription.cancelled', cycle: null }]);
  expect(psp.calls).toEqual(['recordSubscription', 'createRecurrence', 'recordSubscriptionState']);
});

it('a retry the PSP refuses leaves the cycle open: the next reading asks for a later date, which pays it', async () => {
  const today = await serverToday();
  const firstDueDate = addDays(today, 12);
  const args = input({ journey: 'JOURNEY_2', firstDueDate, lastDueDate: firstDueDate });
  const psp = new FakePsp((_cycle, attempt) => (attempt === 0 ? { rejected: 'AM02' } : 'PAGA'));
  psp.refuseRetries = 1;
  const result = await run(psp, async (taskQueue) => (await startAndPrepare(taskQueue, args)).handle.result());
  expect(result).toMatchObject({ state: 'ACTIVE', cycle: 2 });
  const c = psp.cycles.get(1)!;
  expect(psp.refusedRetries).toHaveLength(1);
  expect(c.retries.map((r) => r.date)).toEqual([addDays(psp.refusedRetries[0], 1)]);
  // AUTHORISED takes a rejected attempt unchanged (nothing recorded); the paid cycle makes it ACTIVE.
  expect(psp.states).toEqual([
    { state: 'AUTHORISED', event: 'subscription.authorised', cycle: null },
    { state: 'ACTIVE', event: 'subscription.cycle.paid', cycle: 1 },
  ]);
});

it("cancelled from the Temporal Web UI (the run cancelled): cancelled at the PSP and CANCELLED, as the merchant's cancel; the run reported cancelled", async () => {
  const today = await serverToday();
  const args = input({ journey: 'JOURNEY_2', firstDueDate: addDays(today, 20) });
  const psp = new FakePsp(noneRejected);
  const failure = await run(psp, async (taskQueue) => {
    const { handle } = await startAndPrepare(taskQueue, args);
    for (let i = 0; (await handle.query(subscriptionStatusQuery)).state !== 'AUTHORISED'; i++) {
      if (i > 100) throw new Error('never AUTHORISED');
      await new Promise((r) => setTimeout(r, 50));
    }
    await handle.cancel();
    return handle.result().then(
      () => null,
      (err: unknown) => err,
    );
  });
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  expect(psp.calls.filter((c) => c === 'cancelAtProvider')).toHaveLength(1);
  expect(psp.states.at(-1)).toEqual({
    state: 'CANCELLED',
    event: 'subscription.cancelled',
    cycle: null,
    cancelledBy: 'MERCHANT',
  });
  expect(psp.cycles.size).toBe(0);
});
