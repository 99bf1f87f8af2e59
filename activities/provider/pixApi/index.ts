/** API Pix v2 client: the public surface (see pixApiClient.ts for the operations, errors.ts for the codes). */
export { PixApiClient, type PixApiClientOptions } from './pixApiClient';
export { pixApiClientFrom } from './fromConfig';
export { PixApiErrorCodes } from './errors';
export type { CobRequest, DevolucaoRequest, PixRange } from './requests';
export type { Cob, CobStatus, Devolucao, DevolucaoStatus, Pix, Webhook } from './schemas';
export { PixAutomaticoClient } from './pixAutomaticoClient';
export type { RecWebhook } from './recSchemas';
