/**
 * The connections domain's tables: psp_connections (merchants' own PSP connections) and
 * psp_balance_readings (each connected account's last saldo reading), each through one store.
 */
export * as pspConnectionStore from './pspConnectionStore';
export * as balanceReadingStore from './balanceReadingStore';
export type { BalanceReading } from './balanceReadingStore';
export { ActiveConnectionExists } from './pspConnectionStore';
export type {
  ConnectionTestRecord,
  MerchantAccountModel,
  NewPspConnection,
  PspConnectionRow,
  PspConnectionStatus,
  PspKind,
} from './pspConnectionStore';
export { accountOfTransfer } from './accountOfTransfer';
export { presentConnection, registerConnection, sealMaterial } from './registration';
export type { ConnectionFields, ConnectionView } from './registration';
export { ConnectionNotActive, pendingRef, stageRotation } from './rotation';
export type { StagedRotation } from './rotation';
