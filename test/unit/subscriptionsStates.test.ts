/**
 * A subscription's state machine and the enrolment access each state gives
 * (core/subscriptions/states.ts): every state against every event, allowed or refused with a
 * SubscriptionTransitionError, and issue 39's year of cycles walked through it.
 */
import {
  enrolmentAccess,
  SUBSCRIPTION_STATES,
  SubscriptionTransitionError,
  transition,
  type SubscriptionEvent,
  type SubscriptionState,
} from '../../core/subscriptions/states';

const EVENTS: Record<string, SubscriptionEvent> = {
  approvedPaid: { type: 'RECURRENCE_APPROVED', firstCyclePaid: true },
  approvedUnpaid: { type: 'RECURRENCE_APPROVED', firstCyclePaid: false },
  refused: { type: 'RECURRENCE_REFUSED' },
  expired: { type: 'RECURRENCE_EXPIRED' },
  cyclePaid: { type: 'CYCLE_PAID', cycle: 2 },
  attemptRejected: { type: 'ATTEMPT_REJECTED', cycle: 2 },
  cycleFailed: { type: 'CYCLE_FAILED', cycle: 2 },
  cancelledByPayer: { type: 'CANCELLED', by: 'PAYER' },
  cancelledByMerchant: { type: 'CANCELLED', by: 'MERCHANT' },
  cancelledByPsp: { type: 'CANCELLED', by: 'PSP' },
};
type EventName = keyof typeof EVENTS;

const CANCELS = {
  cancelledByPayer: 'CANCELLED',
  cancelledByMerchant: 'CANCELLED',
  cancelledByPsp: 'CANCELLED',
} as const;
const LIVE_CYCLES = (onRejected: SubscriptionState) =>
  ({ cyclePaid: 'ACTIVE', attemptRejected: onRejected, cycleFailed: 'SUSPENDED', ...CANCELS }) as const;

/** What each state becomes on each event; an event missing from a state's row is refused. */
const ALLOWED: Record<SubscriptionState, Partial<Record<EventName, SubscriptionState>>> = {
  AWAITING_AUTHORISATION: {
    approvedPaid: 'ACTIVE',
    approvedUnpaid: 'AUTHORISED',
    refused: 'REFUSED',
    expired: 'EXPIRED',
    ...CANCELS,
  },
  AUTHORISED: LIVE_CYCLES('AUTHORISED'),
  ACTIVE: LIVE_CYCLES('PAST_DUE'),
  PAST_DUE: LIVE_CYCLES('PAST_DUE'),
  SUSPENDED: LIVE_CYCLES('SUSPENDED'),
  CANCELLED: {},
  REFUSED: {},
  EXPIRED: {},
};

const cases = SUBSCRIPTION_STATES.flatMap((from) =>
  Object.keys(EVENTS).map((name) => ({ from, name, to: ALLOWED[from][name] })),
);

describe('transitions', () => {
  it.each(cases.filter((c) => c.to))('$from on $name → $to', ({ from, name, to }) => {
    expect(transition(from, EVENTS[name])).toBe(to);
  });

  it.each(cases.filter((c) => !c.to))('$from refuses $name', ({ from, name }) => {
    expect(() => transition(from, EVENTS[name])).toThrow(SubscriptionTransitionError);
  });

  it('the error names the state and the event, with a code', () => {
    const error = (() => {
      try {
        transition('AWAITING_AUTHORISATION', EVENTS.cyclePaid);
      } catch (e) {
        return e as SubscriptionTransitionError;
      }
    })();
    expect(error).toMatchObject({
      name: 'SubscriptionTransitionError',
      code: 'SUBSCRIPTION_TRANSITION_REFUSED',
      from: 'AWAITING_AUTHORISATION',
      event: 'CYCLE_PAID',
      message: 'a subscription in state AWAITING_AUTHORISATION cannot take CYCLE_PAID',
    });
    expect(() => transition('CANCELLED', EVENTS.cancelledByPayer)).toThrow(
      'a subscription in the final state CANCELLED takes no event (got CANCELLED)',
    );
  });
});

describe('enrolment access', () => {
  it.each([
    ['AWAITING_AUTHORISATION', 'PENDING', false],
    ['AUTHORISED', 'PENDING', false],
    ['ACTIVE', 'ACTIVE', true],
    ['PAST_DUE', 'PAST_DUE', true],
    ['SUSPENDED', 'SUSPENDED', false],
    ['CANCELLED', 'CANCELLED', false],
    ['REFUSED', 'NONE', false],
    ['EXPIRED', 'NONE', false],
  ] as const)('%s gives %s (studying: %s)', (state, access, hasAccess) => {
    expect(enrolmentAccess(state)).toEqual({ access, hasAccess });
  });

  it("issue 39's year: a retry heals a cycle, a cycle fails for good and the next one restores access, the payer cancels", () => {
    const steps: [SubscriptionEvent, SubscriptionState, boolean][] = [
      [EVENTS.approvedPaid, 'ACTIVE', true], // journey 3: the cob paid cycle 1
      [{ type: 'CYCLE_PAID', cycle: 2 }, 'ACTIVE', true],
      [{ type: 'ATTEMPT_REJECTED', cycle: 3 }, 'PAST_DUE', true],
      [{ type: 'CYCLE_PAID', cycle: 3 }, 'ACTIVE', true], // the retry paid
      [{ type: 'ATTEMPT_REJECTED', cycle: 4 }, 'PAST_DUE', true],
      [{ type: 'ATTEMPT_REJECTED', cycle: 4 }, 'PAST_DUE', true],
      [{ type: 'CYCLE_FAILED', cycle: 4 }, 'SUSPENDED', false],
      [{ type: 'CYCLE_PAID', cycle: 5 }, 'ACTIVE', true], // restored
      [{ type: 'CANCELLED', by: 'PAYER' }, 'CANCELLED', false],
    ];
    let state: SubscriptionState = 'AWAITING_AUTHORISATION';
    for (const [event, expected, studying] of steps) {
      state = transition(state, event);
      expect([event.type, state, enrolmentAccess(state).hasAccess]).toEqual([event.type, expected, studying]);
    }
  });

  it('journeys 1 and 2: authorised without a payment, no access until the first cycle is paid', () => {
    const authorised = transition('AWAITING_AUTHORISATION', EVENTS.approvedUnpaid);
    expect(enrolmentAccess(authorised).hasAccess).toBe(false);
    expect(enrolmentAccess(transition(authorised, { type: 'CYCLE_PAID', cycle: 1 })).hasAccess).toBe(true);
  });
});
