/**
 * A database transaction as code outside db/ carries it: a service opens one with
 * `sequelize.transaction(...)` and hands it to the stores it calls (db/<domain>/*Store.ts), so the
 * writes of several tables commit or roll back together. Only the stores read or write with it.
 */
import type { Transaction } from 'sequelize';

export type Tx = Transaction;
