/** Data that crosses the workflow boundary for a scheduled settlement. Plain JSON. */
export type SettlementFrequency = 'D0' | 'D1' | 'WEEKLY';

/** What the planning activity decided for one firing of a merchant's schedule. */
export type SettlementPlan =
  | {
      kind: 'SKIP';
      reason: 'NO_SCHEDULE' | 'MERCHANT_NOT_SETTLEABLE' | 'NO_PIX_KEY' | 'BELOW_MINIMUM';
      amountCents: number;
      minimumAmountCents: number;
    }
  | { kind: 'SETTLE'; frequency: SettlementFrequency; amountCents: number; minimumAmountCents: number };

/** The run's result, shown in the Web UI: what it settled, or why nothing (a skip is recorded nowhere else). */
export interface ScheduledSettlementResult {
  merchantId: string;
  plan: SettlementPlan;
  settlementId: string | null;
  status: string | null;
}
