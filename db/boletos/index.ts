/** The boletos domain's tables (boleto_batches, boleto_batch_items), written by one store. Models are exported as types only. */
export * as boletoBatchStore from './boletoBatchStore';
export type { BoletoBatch, BoletoBatchItem } from './boletoBatch';
