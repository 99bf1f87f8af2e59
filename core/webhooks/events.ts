/** Event types a merchant can subscribe to. Charge events are emitted today; see README. */
export const chargeEventTypes = ['charge.created', 'charge.paid', 'charge.expired', 'charge.cancelled'] as const;
export const withdrawalEventTypes = ['withdrawal.completed', 'withdrawal.failed'] as const;

export const subscribableEventTypes = [...chargeEventTypes, ...withdrawalEventTypes] as const;
export type SubscribableEventType = (typeof subscribableEventTypes)[number];
