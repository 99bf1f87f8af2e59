/** Kept for callers not yet moved to the store: the row, its view and its reads live in db/med/medInfractionStore.ts. */
export {
  findInfraction,
  presentInfraction,
  type MedDecisionValue,
  type MedInfractionRow,
  type MedInfractionStatus,
  type MedInfractionView,
} from './medInfractionStore';
