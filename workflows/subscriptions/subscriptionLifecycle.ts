/**
 * subscriptionLifecycle (workflow id `subscription-<id>`), one per subscription by Pix Automático
 * (issue 39): record it → create the recurrence at the PSP (which answers prepareSubscription, the
 * API's Update-With-Start) → wait for the payer's authorisation → charge one cycle per run, then
 * continue as new with `carried` (a subscription lives for years; each run's history stays one
 * cycle long). All I/O is in activities (activities/subscriptions/contract.ts); every rule is pure
 * and lives in core/subscriptions: the calendar (cycleDue, isWithinTerm), when a cobr is sent
 * (issueWindow, issueDecision), what a cobr's attempts mean (retryDecision) and which state an
 * event leads to (transition, which refuses an impossible move instead of ignoring it).
 *
 * Choices kept here:
 * - A notice (recurrenceNotice, cycleNotice) is only a reason to read the PSP: the workflow acts on
 *   GET /rec and GET /cobr, never on the notice. Timers read anyway (hourly while awaiting the
 *   authorisation; from the day after the settlement date at 21:00 Brasília, daily, while a cycle is
 *   open — 21:00 is when the payer PSP's second try on the day is over), so a lost notice delays,
 *   never loses, an outcome.
 * - createRecurrence failing for good (a few quick retries: the API is waiting on the update)
 *   fails prepareSubscription with a non-retryable SubscriptionNotPrepared, and the subscription
 *   ends EXPIRED (subscription.cancelled): the payer was never shown anything to authorise, so
 *   whatever the PSP half-created expires there unapproved, and journey 3's first charge closes
 *   through its own lifecycle.
 * - A cycle whose issue window has closed before it could be sent (an authorisation that came
 *   late, a long outage) is given up with failCycle(ISSUE_WINDOW_CLOSED) and no state change: the
 *   payer missed no payment, so their access does not change; the next cycle is charged as usual.
 * - The merchant's cancel runs in a non-cancellable scope (cancelAtProvider, then CANCELLED), so it
 *   is never half applied; a cancel arriving as a run ends is applied before the run completes or
 *   continues, never dropped. A cancel of the run itself (Temporal Web UI, a client) does the same,
 *   then reports the run cancelled.
 * - A retry the PSP refuses leaves the cycle open (the next reading asks for a later date, or finds
 *   the retry window closed and fails the cycle): a refusal never fails the workflow.
 * - Past the recurrence's last due date the run completes with the state unchanged.
 */
import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  log,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type {
  RecurrenceReading,
  SubscriptionActivities,
  SubscriptionEventName,
} from '../../activities/subscriptions/contract';
import { addDays } from '../../core/boletos/dates';
import {
  cycleDue,
  isWithinTerm,
  periodicidadeOf,
  type CycleDue,
  type RecCalendar,
} from '../../core/subscriptions/calendar';
import { brasiliaDate, issueDecision, issueWindow } from '../../core/subscriptions/issueWindow';
import { retryDecision } from '../../core/subscriptions/retries';
import {
  FINAL_SUBSCRIPTION_STATES,
  transition,
  type CancelledBy,
  type SubscriptionEvent,
  type SubscriptionState,
} from '../../core/subscriptions/states';
import { BusinessStatusKey } from '../../core/temporal/searchAttributes';
import {
  cancelSubscriptionUpdate,
  cycleNoticeSignal,
  prepareSubscriptionUpdate,
  recurrenceNoticeSignal,
  subscriptionStatusQuery,
} from './definitions';
import {
  SubscriptionFailureTypes,
  type PreparedSubscription,
  type SubscriptionCarried,
  type SubscriptionLifecycleInput,
  type SubscriptionStatusView,
} from './types';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Awaiting the authorisation: the PSP is read at least this often (the rec expires there on its own). */
const AUTHORISATION_POLL_MS = HOUR;
/**
 * Journey 3, authorised but its first charge not yet seen PAID (settled by its own charge
 * lifecycle, which sends us nothing): read soon, then less and less often, so a charge that stays
 * open for its whole day costs a few dozen reads, not a thousand.
 */
const FIRST_CHARGE_POLL_MIN_MS = MINUTE;
/** The time in Brasília a cycle is read on the day after its settlement date, then daily. */
const FOLLOW_TIME_BRASILIA = '21:00:00.000-03:00';
/** Why a cycle that was never sent failed (failCycle's reason beside retryDecision's CycleFailure). */
export const ISSUE_WINDOW_CLOSED = 'ISSUE_WINDOW_CLOSED';

// Every step must eventually happen (DB and PSP outages are waited out); activities are idempotent.
const acts = proxyActivities<SubscriptionActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});
// createRecurrence is on the synchronous path of POST /subscriptions: a few quick retries, then the API's error.
const preparing = proxyActivities<SubscriptionActivities>({
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumAttempts: 4 },
});

/** What a run ends with: the next cycle in a new run, or nothing more to do. */
type RunEnd = 'CONTINUE' | 'COMPLETE';

export async function subscriptionLifecycle(input: SubscriptionLifecycleInput): Promise<SubscriptionStatusView> {
  const subscription = new Subscription(input);
  subscription.listen();
  let end: RunEnd;
  try {
    end = await subscription.run();
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // Cancel from the Temporal Web UI or a client: what the merchant's cancel does
    // (docs/operations.md promises it), then the run is reported cancelled, as the operator asked.
    await CancellationScope.nonCancellable(() => subscription.endByOperator());
    throw err;
  }
  if (end === 'CONTINUE' && !subscription.ended()) {
    await continueAsNew<typeof subscriptionLifecycle>({ ...input, carried: subscription.carried() });
  }
  return subscription.view();
}

/** One run's state and steps; the handlers only set flags, the run's own code does the I/O, in order. */
class Subscription {
  private state: SubscriptionState = 'AWAITING_AUTHORISATION';
  private idRec: string | null = null;
  private cycle = 1;
  private cancelledBy: CancelledBy | null = null;
  private prepared: PreparedSubscription | undefined;
  private prepareFailure: ApplicationFailure | undefined;
  private cancelRequested = false;
  private recurrenceNoticed = false;
  private readonly noticedTxids = new Set<string>();
  private readonly calendar: RecCalendar;

  constructor(private readonly input: SubscriptionLifecycleInput) {
    this.calendar = {
      dataInicial: input.firstDueDate,
      periodicidade: periodicidadeOf(input.interval),
      ...(input.lastDueDate ? { dataFinal: input.lastDueDate } : {}),
    };
  }

  listen(): void {
    setHandler(subscriptionStatusQuery, () => this.view());
    setHandler(prepareSubscriptionUpdate, async () => {
      // Joined by a retried POST too (updateWithStartOrJoin): the same answer, once it is known.
      await condition(() => this.prepared !== undefined || this.prepareFailure !== undefined);
      if (this.prepareFailure) throw this.prepareFailure;
      return { ...(this.prepared as PreparedSubscription), state: this.state };
    });
    setHandler(recurrenceNoticeSignal, () => {
      this.recurrenceNoticed = true;
    });
    setHandler(cycleNoticeSignal, ({ txid }) => {
      this.noticedTxids.add(txid);
    });
    setHandler(
      cancelSubscriptionUpdate,
      async () => {
        this.cancelRequested = true;
        // Answered once the run has ended the subscription (by this cancel, or a payer's that won the race).
        await condition(() => this.ended());
        return this.view();
      },
      {
        validator: () => {
          if (this.ended()) {
            throw ApplicationFailure.nonRetryable(
              `the subscription has already ended (${this.state})`,
              SubscriptionFailureTypes.alreadyEnded,
            );
          }
        },
      },
    );
  }

  /** This run's part: the authorisation (first run) or the carried state, then one cycle. */
  async run(): Promise<RunEnd> {
    if (this.input.carried) this.resume(this.input.carried);
    else await this.authorise();
    const end: RunEnd = this.ended() ? 'COMPLETE' : await this.chargeCycle();
    await this.drainHandlers();
    return end;
  }

  ended(): boolean {
    return FINAL_SUBSCRIPTION_STATES.includes(this.state);
  }

  view(): SubscriptionStatusView {
    return { state: this.state, idRec: this.idRec, cycle: this.cycle, cancelledBy: this.cancelledBy };
  }

  carried(): SubscriptionCarried {
    return { state: this.state, idRec: this.idRec as string, nextCycle: this.cycle };
  }

  /** A continued run: the subscription is authorised; a late prepareSubscription gets what it can still show. */
  resume(carried: SubscriptionCarried): void {
    this.state = carried.state;
    this.idRec = carried.idRec;
    this.cycle = carried.nextCycle;
    // A recurrence notice that came as the previous run continued is not carried over: the rec is
    // read once before this cycle is charged, so a payer's cancel is never missed for want of a notice.
    this.recurrenceNoticed = true;
    this.prepared = {
      subscriptionId: this.input.subscriptionId,
      idRec: carried.idRec,
      state: carried.state,
      qrCopyPaste: null,
      authorizationRequestId: null,
    };
  }

  // ── authorisation ────────────────────────────────────────────────────────────────────────────

  async authorise(): Promise<void> {
    await acts.recordSubscription(this.input);
    await this.prepare();
    let firstChargePollMs = FIRST_CHARGE_POLL_MIN_MS;
    while (!this.ended()) {
      if (this.cancelRequested) return this.cancelByMerchant();
      this.recurrenceNoticed = false;
      const step = await this.onAuthorisationReading(await acts.readRecurrence(this.ids()));
      if (step === 'DONE') return;
      const pollMs = step === 'WAIT_FIRST_CHARGE' ? firstChargePollMs : AUTHORISATION_POLL_MS;
      if (step === 'WAIT_FIRST_CHARGE') firstChargePollMs = Math.min(2 * firstChargePollMs, AUTHORISATION_POLL_MS);
      await condition(() => this.cancelRequested || this.recurrenceNoticed, pollMs);
    }
  }

  private async prepare(): Promise<void> {
    try {
      const prepared = await preparing.createRecurrence({
        subscriptionId: this.input.subscriptionId,
        firstAttemptAt: workflowInfo().startTime.toISOString(),
      });
      this.idRec = prepared.idRec;
      this.prepared = prepared;
    } catch (err) {
      // The PSP's own failure goes along as the cause: the API tells a refusal from an outage by it.
      this.prepareFailure = ApplicationFailure.create({
        message: `the recurrence could not be created at the PSP: ${failureMessage(err)}`,
        type: SubscriptionFailureTypes.notPrepared,
        nonRetryable: true,
        cause: failureCause(err),
      });
      await this.apply({ type: 'RECURRENCE_EXPIRED' }, 'subscription.cancelled');
    }
  }

  private async onAuthorisationReading(rec: RecurrenceReading): Promise<'DONE' | 'WAIT' | 'WAIT_FIRST_CHARGE'> {
    const journey3 = this.input.journey === 'JOURNEY_3';
    switch (rec.status) {
      case 'CANCELLED':
        await this.cancelledAtPsp(rec);
        return 'DONE';
      case 'REJECTED':
        await this.apply({ type: 'RECURRENCE_REFUSED' }, 'subscription.cancelled', { endingCode: rec.endingCode });
        return 'DONE';
      case 'EXPIRED':
        await this.apply({ type: 'RECURRENCE_EXPIRED' }, 'subscription.cancelled', { endingCode: rec.endingCode });
        return 'DONE';
    }
    if (journey3 && rec.firstCharge === 'CLOSED') {
      // The cob whose payment authorises closed unpaid: the rec can no longer be approved by it.
      await CancellationScope.nonCancellable(async () => {
        await acts.cancelAtProvider(this.ids());
        await this.apply({ type: 'RECURRENCE_EXPIRED' }, 'subscription.cancelled');
      });
      return 'DONE';
    }
    if (rec.status === 'CREATED') return journey3 && rec.firstCharge === 'PAID' ? 'WAIT_FIRST_CHARGE' : 'WAIT';
    if (!journey3) {
      await this.apply({ type: 'RECURRENCE_APPROVED', firstCyclePaid: false }, 'subscription.authorised');
      return 'DONE';
    }
    if (rec.firstCharge !== 'PAID') return 'WAIT_FIRST_CHARGE';
    await this.authorisedByFirstPayment();
    return 'DONE';
  }

  /** Journey 3: cycle 1 was paid by the first charge; the next one to charge is 2. */
  private async authorisedByFirstPayment(): Promise<void> {
    const first = cycleDue(this.calendar, 1);
    await acts.recordFirstCycle({
      subscriptionId: this.input.subscriptionId,
      dueDate: first.dueDate,
      settlementDate: first.settlementDate,
    });
    await this.apply({ type: 'RECURRENCE_APPROVED', firstCyclePaid: true }, 'subscription.authorised');
    await this.record('subscription.cycle.paid');
    this.cycle = 2;
  }

  // ── one cycle ────────────────────────────────────────────────────────────────────────────────

  /** Charges `this.cycle`: issue in its window, follow it to paid or failed; CONTINUE to the next. */
  async chargeCycle(): Promise<RunEnd> {
    if (!isWithinTerm(this.calendar, this.cycle)) return 'COMPLETE';
    const due = cycleDue(this.calendar, this.cycle);
    const txid = await this.issueInWindow(due);
    if (this.ended()) return 'COMPLETE';
    if (txid !== undefined) await this.follow(due, txid);
    if (this.ended()) return 'COMPLETE';
    this.cycle += 1;
    return 'CONTINUE';
  }

  /** The cobr's txid once sent; undefined when the subscription ended meanwhile or the window closed. */
  private async issueInWindow(due: CycleDue): Promise<string | undefined> {
    const window = issueWindow(due.settlementDate);
    for (;;) {
      if (await this.interrupted()) return undefined;
      const decision = issueDecision(window, Date.now());
      if (decision.kind === 'TOO_LATE') return this.giveUpUnsent(due);
      if (decision.kind === 'ISSUE_NOW') {
        const issued = await acts.issueCycle({
          subscriptionId: this.input.subscriptionId,
          cycle: due.cycle,
          dueDate: due.dueDate,
          settlementDate: due.settlementDate,
        });
        return issued.txid;
      }
      await condition(() => this.cancelRequested || this.recurrenceNoticed, untilMs(decision.untilMs));
    }
  }

  private async giveUpUnsent(due: CycleDue): Promise<undefined> {
    log.warn('the issue window of this cycle closed before its cobr was sent: the cycle is not charged', {
      subscriptionId: this.input.subscriptionId,
      cycle: due.cycle,
      settlementDate: due.settlementDate,
    });
    await acts.failCycle({
      subscriptionId: this.input.subscriptionId,
      cycle: due.cycle,
      reason: ISSUE_WINDOW_CLOSED,
      rejectionCode: null,
    });
    return undefined;
  }

  /** Reads the cobr on each notice of its txid and on the daily timer until the cycle is decided. */
  private async follow(due: CycleDue, txid: string): Promise<void> {
    const nextSettlementDate = isWithinTerm(this.calendar, due.cycle + 1)
      ? cycleDue(this.calendar, due.cycle + 1).settlementDate
      : undefined;
    const retriesAsked = new Set<string>();
    let checkAtMs = Date.parse(`${addDays(due.settlementDate, 1)}T${FOLLOW_TIME_BRASILIA}`);
    for (;;) {
      await condition(
        () => this.cancelRequested || this.recurrenceNoticed || this.noticedTxids.has(txid),
        untilMs(checkAtMs),
      );
      if (await this.interrupted()) return;
      this.noticedTxids.clear(); // notices of other txids are late ones of earlier cycles: nothing to read
      if (await this.judgeCycle(due, nextSettlementDate, retriesAsked)) return;
      while (checkAtMs <= Date.now()) checkAtMs += DAY;
    }
  }

  /** One reading of the cobr and what retryDecision makes of it; true once the cycle is decided. */
  private async judgeCycle(
    due: CycleDue,
    nextSettlementDate: string | undefined,
    retriesAsked: Set<string>,
  ): Promise<boolean> {
    const reading = await acts.readCycle({ subscriptionId: this.input.subscriptionId, cycle: due.cycle });
    const decision = retryDecision({
      policy: this.input.retryPolicy,
      cobr: reading.cobr,
      settlementDate: due.settlementDate,
      nextSettlementDate,
      attempts: reading.attempts,
      today: brasiliaDate(Date.now()),
    });
    const cycle = { subscriptionId: this.input.subscriptionId, cycle: due.cycle };
    switch (decision.kind) {
      case 'WAIT':
        return false;
      case 'RETRY':
        // A PSP whose reading lags behind the retry just asked would make the same date come back: asked once.
        if (retriesAsked.has(decision.date)) return false;
        retriesAsked.add(decision.date);
        if (!(await this.askRetry(due, decision.date))) return false;
        await this.apply({ type: 'ATTEMPT_REJECTED', cycle: due.cycle }, null);
        return false;
      case 'FAILED':
        await acts.failCycle({ ...cycle, reason: decision.reason, rejectionCode: decision.rejectionCode ?? null });
        await this.apply({ type: 'CYCLE_FAILED', cycle: due.cycle }, 'subscription.cycle.failed');
        return true;
      case 'PAID': {
        // Credited only on the PSP's record: a reading it does not back keeps the cycle open.
        const { outcome } = await acts.settleCycle(cycle);
        if (outcome === 'NOT_CONFIRMED') return false;
        await this.apply({ type: 'CYCLE_PAID', cycle: due.cycle }, 'subscription.cycle.paid');
        return true;
      }
    }
  }

  /**
   * POST /cobr/{txid}/retentativa/{date}; false when the PSP refused it (a domain refusal: the
   * activity retries everything else). The cycle stays open: the next reading asks for a later date,
   * or finds the retry window closed and fails the cycle, so a refusal never fails the workflow.
   */
  private async askRetry(due: CycleDue, date: string): Promise<boolean> {
    try {
      await acts.requestCycleRetry({ subscriptionId: this.input.subscriptionId, cycle: due.cycle, date });
      return true;
    } catch (err) {
      if (isCancellation(err)) throw err;
      log.warn('the PSP refused a retry of this cycle: the next reading decides', {
        subscriptionId: this.input.subscriptionId,
        cycle: due.cycle,
        date,
        reason: failureMessage(err),
      });
      return false;
    }
  }

  // ── cancellation, at any time ────────────────────────────────────────────────────────────────

  /** Applies a merchant's cancel or a recurrence notice that came while waiting; true once ended. */
  private async interrupted(): Promise<boolean> {
    if (this.cancelRequested && !this.ended()) {
      await this.cancelByMerchant();
    } else if (this.recurrenceNoticed) {
      this.recurrenceNoticed = false;
      const rec = await acts.readRecurrence(this.ids());
      // Authorised, the rec can only end by a cancel (payer or PSP); any other reading changes nothing.
      if (rec.status === 'CANCELLED') await this.cancelledAtPsp(rec);
    }
    return this.ended();
  }

  private async cancelledAtPsp(rec: RecurrenceReading): Promise<void> {
    const by = rec.cancelledBy ?? 'PSP';
    await this.apply({ type: 'CANCELLED', by }, 'subscription.cancelled', {
      cancelledBy: by,
      endingCode: rec.endingCode,
    });
  }

  private async cancelByMerchant(): Promise<void> {
    await CancellationScope.nonCancellable(async () => {
      await acts.cancelAtProvider(this.ids());
      await this.apply({ type: 'CANCELLED', by: 'MERCHANT' }, 'subscription.cancelled', { cancelledBy: 'MERCHANT' });
    });
  }

  /** The run was cancelled (operator): the subscription is cancelled as the merchant would; no handler is left waiting. */
  async endByOperator(): Promise<void> {
    if (!this.prepared && !this.prepareFailure) {
      this.prepareFailure = ApplicationFailure.nonRetryable(
        'the subscription was cancelled before its recurrence was created',
        SubscriptionFailureTypes.notPrepared,
      );
    }
    if (!this.ended()) await this.cancelByMerchant();
    await condition(allHandlersFinished);
  }

  /**
   * Before the run completes or continues: a cancel that arrived meanwhile is applied (its update
   * waits for it), then every handler has answered, so none is lost with the run.
   */
  async drainHandlers(): Promise<void> {
    for (;;) {
      await condition(() => (this.cancelRequested && !this.ended()) || allHandlersFinished());
      if (!(this.cancelRequested && !this.ended())) return;
      await this.cancelByMerchant();
    }
  }

  // ── state ────────────────────────────────────────────────────────────────────────────────────

  /**
   * The state after `event` (core transition: an impossible move is a bug, which fails the workflow
   * task until fixed, never a silent skip), recorded with its event; a move that changes nothing and
   * emits nothing is not recorded.
   */
  private async apply(
    event: SubscriptionEvent,
    emitted: SubscriptionEventName | null,
    details: { cancelledBy?: CancelledBy; endingCode?: string | null } = {},
  ): Promise<void> {
    const next = transition(this.state, event);
    if (next === this.state && emitted === null) return;
    await acts.recordSubscriptionState({
      subscriptionId: this.input.subscriptionId,
      state: next,
      event: emitted,
      // Cycle events are keyed by their cycle; the subscription's own (authorised, cancelled) by none.
      cycle: 'cycle' in event ? event.cycle : null,
      ...details,
    });
    // Changed once recorded: a cancel's answer and the query never show a state the row lacks.
    this.state = next;
    if (details.cancelledBy) this.cancelledBy = details.cancelledBy;
    upsertSearchAttributes([{ key: BusinessStatusKey, value: next }]);
  }

  /** An event with no state change (journey 3's cycle 1 paid, right after its authorisation). */
  private async record(emitted: SubscriptionEventName): Promise<void> {
    await acts.recordSubscriptionState({
      subscriptionId: this.input.subscriptionId,
      state: this.state,
      event: emitted,
      cycle: this.cycle,
    });
  }

  private ids(): { subscriptionId: string } {
    return { subscriptionId: this.input.subscriptionId };
  }
}

/** condition() with a timeout ≤ 0 would not wait at all; 1 ms is "already due". */
function untilMs(atMs: number): number {
  return Math.max(1, atMs - Date.now());
}

/** A regular activity's failure arrives wrapped (ActivityFailure, the reason in `cause`). */
function failureCause(err: unknown): Error | undefined {
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof Error) return cause;
  return err instanceof Error ? err : undefined;
}

function failureMessage(err: unknown): string {
  return failureCause(err)?.message ?? 'unknown error';
}
