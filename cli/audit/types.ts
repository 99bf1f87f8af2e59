/**
 * The audit's vocabulary: each check is a function of its dependencies and the options that
 * answers one AuditCheck. The checks only read (SELECTs, the provider's list routes, Temporal's
 * visibility); none repairs anything: an operator (or `payout reconcile`) decides what to do.
 */
import type { Client } from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import type { ProviderStatement } from '../../core/provider';

export interface Discrepancy {
  /** The row it names: `<table or kind>:<id>` (a ledger account by its code, a workflow by its id). */
  row: string;
  problem: string;
}

export interface AuditCheck {
  check: string;
  /** How many rows (or provider records, or workflow runs) the check looked at. */
  examined: number;
  discrepancies: Discrepancy[];
  /** What is worth knowing but is not money lost or paid twice (a disabled endpoint, an exhausted delivery). */
  notes: string[];
}

/** What the transfers check needs of the PSP: its statement (routedPixProvider getStatement: Efí's sends, the devoluções). */
export interface StatementSource {
  getStatement(range: { from: string; to: string }): Promise<ProviderStatement>;
}

export interface AuditDeps {
  sequelize: Sequelize;
  provider: StatementSource;
  temporal: Client;
}

export interface AuditOptions {
  /** Rows, sends and closed runs from then on; unset: everything (the provider from the oldest transfer row). */
  since?: Date;
  /** "Now" for the age rules (tests); the wall clock by default. */
  now?: Date;
  /** The gateway's task queue: only its workflow runs are examined (TEMPORAL_TASK_QUEUE). */
  taskQueue: string;
  /** A run open this long past its longest expected wait is stuck (default 30 minutes). */
  staleAfterMs?: number;
  /** The bundled sandbox's control routes, to read its per-idEnvio request counters. */
  sandbox?: { url: string; controlToken?: string };
}

export const DEFAULT_STALE_AFTER_MS = 30 * 60_000;
