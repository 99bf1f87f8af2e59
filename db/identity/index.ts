/**
 * The identity domain's tables, as the rest of the code reaches them: merchants, merchant_members,
 * users, api_credentials, user_sessions + refresh_tokens, the second-factor tables,
 * login_throttles and request_signatures_seen, each written by one store here. The models are
 * exported as types only: code outside db/ reads rows, the stores write them.
 */
export * as merchantStore from './merchantStore';
export * as memberStore from './memberStore';
export * as userStore from './userStore';
export * as apiCredentialStore from './apiCredentialStore';
export * as sessionStore from './sessionStore';
export * as secondFactorStore from './secondFactorStore';
export * as loginThrottleStore from './loginThrottleStore';
export * as requestSignatureStore from './requestSignatureStore';
export { createApiCredential, type IssuedCredential } from './merchantAdmin';
export { MEMBER_ROLES, type MemberRole } from './merchantMember';
export type { Merchant } from './merchant';
export type { MerchantMember } from './merchantMember';
export type { User } from './user';
export type { ApiCredential } from './apiCredential';
export type { AuthChallenge, ChallengePurpose, SecondFactor } from './secondFactor';
