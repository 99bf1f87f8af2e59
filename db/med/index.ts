/** The med domain's tables: med_infractions (medInfractionStore) and a case's alerts, defence and evidence (medCaseStore). */
export * as medInfractionStore from './medInfractionStore';
export * as medCaseStore from './medCaseStore';
export { presentInfraction } from './medInfractionStore';
export type { MedInfractionRow, MedInfractionStatus, MedInfractionView, MedPspOutcome } from './medInfractionStore';
export type { AlertRow, DefenceRow, EvidenceRow } from './medCaseStore';
