/**
 * A subscription's state, the events that move it and the access its enrolment gives (issue 39,
 * Deliver 3: "access follows payment"). Pure: the subscription's workflow applies each event it
 * learns (webhookrec / webhookcobr confirmed by a GET, the merchant's cancel) with `transition`,
 * and an event the state cannot take is refused with a SubscriptionTransitionError, never ignored.
 *
 *   AWAITING_AUTHORISATION ─approved, first cycle paid (journey 3)──────────────▶ ACTIVE
 *   AWAITING_AUTHORISATION ─approved, nothing paid yet (journeys 1, 2)──────────▶ AUTHORISED
 *   AWAITING_AUTHORISATION ─refused / expired──────────────────────────────────▶ REFUSED / EXPIRED
 *   AUTHORISED | ACTIVE | PAST_DUE | SUSPENDED ─cycle paid──────────────────────▶ ACTIVE
 *   ACTIVE | PAST_DUE ─attempt rejected, a retry follows────────────────────────▶ PAST_DUE
 *   AUTHORISED | SUSPENDED ─attempt rejected, a retry follows──────────────────▶ (unchanged)
 *   AUTHORISED | ACTIVE | PAST_DUE | SUSPENDED ─cycle failed for good───────────▶ SUSPENDED
 *   any state but the three final ones ─cancelled by payer, merchant or PSP─────▶ CANCELLED
 *   CANCELLED, REFUSED, EXPIRED: final, take no event.
 *
 * A failed cycle does not end the mandate (the rules), so SUSPENDED waits for the next cycle:
 * paid, it restores access; cancelled, it ends. A subscription authorised but not yet paid
 * (journeys 1 and 2: first charge on the first due date) gives no access until that charge is paid.
 */
export const SUBSCRIPTION_STATES = [
  'AWAITING_AUTHORISATION',
  'AUTHORISED',
  'ACTIVE',
  'PAST_DUE',
  'SUSPENDED',
  'CANCELLED',
  'REFUSED',
  'EXPIRED',
] as const;
export type SubscriptionState = (typeof SUBSCRIPTION_STATES)[number];

export const FINAL_SUBSCRIPTION_STATES: readonly SubscriptionState[] = ['CANCELLED', 'REFUSED', 'EXPIRED'];

export type CancelledBy = 'PAYER' | 'MERCHANT' | 'PSP';

export type SubscriptionEvent =
  /** The rec is APROVADA; with journey 3 the cob that authorised it paid the first cycle. */
  | { type: 'RECURRENCE_APPROVED'; firstCyclePaid: boolean }
  /** The rec is REJEITADA (the payer refused it). */
  | { type: 'RECURRENCE_REFUSED' }
  /** The rec is EXPIRADA (nobody answered the authorisation request in time). */
  | { type: 'RECURRENCE_EXPIRED' }
  | { type: 'CYCLE_PAID'; cycle: number }
  /** An attempt was rejected and a retry was asked for (retryDecision answered RETRY). */
  | { type: 'ATTEMPT_REJECTED'; cycle: number }
  /** retryDecision answered FAILED. */
  | { type: 'CYCLE_FAILED'; cycle: number }
  /** The rec is CANCELADA, or the merchant cancelled it through the gateway. */
  | { type: 'CANCELLED'; by: CancelledBy };
export type SubscriptionEventType = SubscriptionEvent['type'];

/** The enrolment's access in each state; `hasAccess` says whether the student may study. */
export const ENROLMENT_ACCESS = {
  AWAITING_AUTHORISATION: { access: 'PENDING', hasAccess: false },
  AUTHORISED: { access: 'PENDING', hasAccess: false },
  ACTIVE: { access: 'ACTIVE', hasAccess: true },
  // The student keeps studying while the retries may still pay the cycle.
  PAST_DUE: { access: 'PAST_DUE', hasAccess: true },
  SUSPENDED: { access: 'SUSPENDED', hasAccess: false },
  CANCELLED: { access: 'CANCELLED', hasAccess: false },
  REFUSED: { access: 'NONE', hasAccess: false },
  EXPIRED: { access: 'NONE', hasAccess: false },
} as const satisfies Record<SubscriptionState, { access: string; hasAccess: boolean }>;
export type EnrolmentAccess = (typeof ENROLMENT_ACCESS)[SubscriptionState]['access'];

export function enrolmentAccess(state: SubscriptionState): { access: EnrolmentAccess; hasAccess: boolean } {
  return ENROLMENT_ACCESS[state];
}

export class SubscriptionTransitionError extends Error {
  readonly code = 'SUBSCRIPTION_TRANSITION_REFUSED';
  constructor(
    readonly from: SubscriptionState,
    readonly event: SubscriptionEventType,
  ) {
    super(
      FINAL_SUBSCRIPTION_STATES.includes(from)
        ? `a subscription in the final state ${from} takes no event (got ${event})`
        : `a subscription in state ${from} cannot take ${event}`,
    );
    this.name = 'SubscriptionTransitionError';
  }
}

const LIVE: readonly SubscriptionState[] = ['AUTHORISED', 'ACTIVE', 'PAST_DUE', 'SUSPENDED'];

/** The state after `event`, or a SubscriptionTransitionError when `from` cannot take it. */
export function transition(from: SubscriptionState, event: SubscriptionEvent): SubscriptionState {
  const next = nextState(from, event);
  if (next === undefined) throw new SubscriptionTransitionError(from, event.type);
  return next;
}

function nextState(from: SubscriptionState, event: SubscriptionEvent): SubscriptionState | undefined {
  if (FINAL_SUBSCRIPTION_STATES.includes(from)) return undefined;
  switch (event.type) {
    case 'RECURRENCE_APPROVED':
      if (from !== 'AWAITING_AUTHORISATION') return undefined;
      return event.firstCyclePaid ? 'ACTIVE' : 'AUTHORISED';
    case 'RECURRENCE_REFUSED':
      return from === 'AWAITING_AUTHORISATION' ? 'REFUSED' : undefined;
    case 'RECURRENCE_EXPIRED':
      return from === 'AWAITING_AUTHORISATION' ? 'EXPIRED' : undefined;
    case 'CYCLE_PAID':
      return LIVE.includes(from) ? 'ACTIVE' : undefined;
    case 'ATTEMPT_REJECTED':
      if (from === 'ACTIVE' || from === 'PAST_DUE') return 'PAST_DUE';
      return from === 'AUTHORISED' || from === 'SUSPENDED' ? from : undefined;
    case 'CYCLE_FAILED':
      return LIVE.includes(from) ? 'SUSPENDED' : undefined;
    case 'CANCELLED':
      return 'CANCELLED';
  }
}
