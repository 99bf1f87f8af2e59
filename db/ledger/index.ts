/**
 * Ledger reads for code outside the money core (db/ledger/balanceStore.ts; a merchant's lines:
 * statementStore.ts). The ledger tables
 * (ledger_accounts, ledger_transactions, ledger_postings) are written only by
 * activities/ledger/ledgerWriter.ts.
 */
export * as balanceStore from './balanceStore';
export * as statementStore from './statementStore';
export { MERCHANT_ACCOUNTS, type MerchantAccount } from './statementStore';
