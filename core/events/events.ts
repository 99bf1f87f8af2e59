/** Event types a merchant can subscribe to; every one of them is emitted from the durable outbox. */
export const chargeEventTypes = [
  'charge.created',
  'charge.paid',
  'charge.expired',
  'charge.cancelled',
  'charge.refunded',
] as const;
export const withdrawalEventTypes = ['withdrawal.completed', 'withdrawal.failed'] as const;
export const payoutEventTypes = ['payout.batch.completed', 'payout.item.paid', 'payout.item.failed'] as const;

/** Checkouts (P0 and sessions): payload is the P0 public object, or the session for sessions. */
export const checkoutEventTypes = [
  'checkout.paid',
  'checkout.expired',
  'checkout.cancelled',
  'checkout.refunded',
] as const;

/** Pix infractions (MED): payload is the infraction as GET /med/infractions/{id} answers it. */
export const medEventTypes = [
  'med.infraction.opened',
  'med.infraction.deadline_approaching',
  'med.infraction.accepted',
  'med.infraction.rejected',
  'med.infraction.cancelled',
] as const;

/** Subscriptions paid by Pix Automático: payload is the subscription as GET /subscriptions/{id} answers it (core/subscriptions/view.ts). */
export const subscriptionEventTypes = [
  'subscription.created',
  'subscription.authorised',
  'subscription.cycle.paid',
  'subscription.cycle.failed',
  'subscription.cancelled',
] as const;

export const subscribableEventTypes = [
  ...chargeEventTypes,
  ...withdrawalEventTypes,
  ...payoutEventTypes,
  ...checkoutEventTypes,
  ...medEventTypes,
  ...subscriptionEventTypes,
] as const;
export type SubscribableEventType = (typeof subscribableEventTypes)[number];
