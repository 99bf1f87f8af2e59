/** The med domain's table (med_infractions), through one store. */
export * as medInfractionStore from './medInfractionStore';
export { presentInfraction } from './medInfractionStore';
export type { MedInfractionRow, MedInfractionStatus, MedInfractionView } from './medInfractionStore';
