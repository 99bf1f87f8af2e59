/** The settlements domain's tables (settlements, settlement_schedules), through one store. */
export * as settlementStore from './settlementStore';
export type { ScheduleConfig, Settlement } from './settlementStore';
