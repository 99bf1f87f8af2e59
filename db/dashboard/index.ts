/** The dashboard's read model (dashboard_daily, maintained by trigger, and its views over other domains' tables). */
export * as figureStore from './figureStore';
export type { RollupTotals, TransactionFilter } from './figureStore';
