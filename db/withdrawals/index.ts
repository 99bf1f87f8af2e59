/** The withdrawals domain's table (withdrawals), read through its store. Models are exported as types only. */
export * as withdrawalStore from './withdrawalStore';
export { presentWithdrawalRows } from './withdrawalView';
export type { Withdrawal } from './withdrawal';
