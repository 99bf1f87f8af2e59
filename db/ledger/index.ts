/**
 * Ledger reads for code outside the money core (db/ledger/balanceStore.ts). The ledger tables
 * (ledger_accounts, ledger_transactions, ledger_postings) are written only by
 * activities/ledger/ledgerWriter.ts.
 */
export * as balanceStore from './balanceStore';
