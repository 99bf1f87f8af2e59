/**
 * The charges domain's tables: charges (with charge_splits and charge_tombstones),
 * payment_alerts, provider_events and provider_callback_health, each written by one store here;
 * and the operations the API and the worker both run on them: issuing a charge (issue.ts) and
 * routing a payment claim to its charge's workflow (paymentClaims.ts).
 * Models are exported as types only.
 */
export * as chargeStore from './chargeStore';
export * as paymentAlertStore from './paymentAlertStore';
export * as providerEventStore from './providerEventStore';
export * as callbackHealthStore from './callbackHealthStore';
export { presentChargeRow } from './sellerChargeView';
export { issueChargeRaw, issueFailureOf, type IssueDeps, type IssueFailure } from './issue';
export {
  ProviderCallbackService,
  callbackOutcomes,
  receivedPixEventId,
  type CallbackOutcome,
  type MerchantScope,
  type ProviderEvent,
} from './paymentClaims';
export type { Charge, ChargeStatus, StoredPix, ChargePayerDetails } from './charge';
export type { PaymentAlertKind } from './paymentAlertStore';
