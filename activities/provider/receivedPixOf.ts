/**
 * A Pix as API Pix writes it (GET /pix, GET /pix/{e2eid}, a notification's entry), in the
 * gateway's words: cents, an ISO instant, the payer when the PSP's `pagador` extension names them.
 * Pure.
 */
import { pixAmountToCents } from '../../core/pix/pixAmount';
import type { ReceivedPix } from '../../core/provider';
import { payerOf } from './chargeOfCob';
import { pagadorSchema } from './pixApi/schemas';

/** The fields of a Pix the gateway reads; `valor` and `horario` already checked against the standard. */
export interface PixFields {
  endToEndId: string;
  txid?: string;
  valor: string;
  horario: string;
  /** A PSP extension, unchecked: read when it is well formed. */
  pagador?: unknown;
}

export function receivedPixOf(pix: PixFields): ReceivedPix {
  return {
    endToEndId: pix.endToEndId,
    txid: pix.txid ?? null,
    amountCents: pixAmountToCents(pix.valor),
    paidAt: new Date(Date.parse(pix.horario)).toISOString(),
    payer: payerOf(pagadorSchema.safeParse(pix.pagador).data),
  };
}
