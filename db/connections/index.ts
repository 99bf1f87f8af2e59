/** The connections domain's table (psp_connections: merchants' own PSP connections), through one store. */
export * as pspConnectionStore from './pspConnectionStore';
export { ActiveConnectionExists } from './pspConnectionStore';
export type {
  ConnectionTestRecord,
  MerchantAccountModel,
  NewPspConnection,
  PspConnectionRow,
  PspConnectionStatus,
  PspKind,
  SplitRecipientRow,
} from './pspConnectionStore';
export { accountOfTransfer } from './accountOfTransfer';
export { presentConnection, registerConnection, sealMaterial } from './registration';
export type { ConnectionFields, ConnectionView } from './registration';
