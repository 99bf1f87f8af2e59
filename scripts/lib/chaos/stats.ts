/** The load's counters: per operation kind, per attempt outcome, and the idempotency findings. */
import type { LoadEvent } from './types';

export interface OperationCount {
  requested: number;
  succeeded: number;
  refused: number;
  gaveUp: number;
}

/** A key answered with two different ids: a finding for the report. */
export interface IdMismatch {
  op: string;
  key: string;
  ids: string[];
  how: 'replay' | 'concurrent';
}

export class LoadStats {
  readonly operations: Record<string, OperationCount> = {};
  readonly attempts = { fiveXx: 0, timeouts: 0, connection: 0 };
  readonly idMismatches: IdMismatch[] = [];
  readonly idChecks = { replays: 0, concurrent: 0 };
  /** Ids the load made, by kind (charges, withdrawals, batches, ...), for the audit. */
  readonly created: Record<string, string[]> = {};
  /** Operations that threw (a bug of the load, or the stack answering what it never should). */
  readonly errors: string[] = [];
  /** Refusals by `op status code`, so an unexpected one stands out in the report. */
  readonly refusals: Record<string, number> = {};
  /** Payout batches drawn after the run's item budget was spent, and so not sent (plan.ts payoutBudget). */
  overBudget = 0;

  /** Replaced by startLoad with its own options' log. */
  constructor(public log: (event: LoadEvent) => void) {}

  attempt(event: LoadEvent): void {
    if (event.outcome === '5xx') this.attempts.fiveXx++;
    if (event.outcome === 'timeout') this.attempts.timeouts++;
    if (event.outcome === 'connection') this.attempts.connection++;
    this.log(event);
  }

  private count(kind: string): OperationCount {
    return (this.operations[kind] ??= { requested: 0, succeeded: 0, refused: 0, gaveUp: 0 });
  }

  requested(kind: string): void {
    this.count(kind).requested++;
  }

  ended(kind: string, end: 'succeeded' | 'refused' | 'gaveUp'): void {
    this.count(kind)[end]++;
  }

  refusal(op: string, status: number | undefined, code: string | undefined): void {
    const key = `${op} ${status ?? '-'} ${code ?? ''}`.trim();
    this.refusals[key] = (this.refusals[key] ?? 0) + 1;
  }

  made(kind: string, id: string): void {
    (this.created[kind] ??= []).push(id);
  }

  compareIds(op: string, key: string, ids: (string | undefined)[], how: IdMismatch['how']): void {
    if (how === 'replay') this.idChecks.replays++;
    else this.idChecks.concurrent++;
    const seen = [...new Set(ids.filter((id): id is string => !!id))];
    if (seen.length > 1) this.idMismatches.push({ op, key, ids: seen, how });
  }
}
