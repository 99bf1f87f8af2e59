/**
 * A Pix as API Pix writes it (GET /pix, GET /pix/{e2eid}, a notification's entry), in the
 * gateway's words: cents, an ISO instant, the payer when the PSP's `pagador` extension names them.
 * Pure: the API's notification route and the worker's sweep read a Pix the same way.
 */
import { z } from 'zod';
import { pixAmountToCents } from './pixAmount';
import type { ProviderPayer, ReceivedPix } from '../provider';

/**
 * Who paid: not in the standard's Pix object (it has only the payer's free text, infoPagador),
 * but a PSP extension some PSPs send, the bundled sandbox among them (sandbox/pixApi/pixView.ts).
 * Read when it is there and well formed; anything else reads as absent, never as a broken
 * answer: a PSP with other names for it (or none) must not make a paid Pix unreadable.
 */
export const pagadorSchema = z.object({
  nome: z.string().min(1).max(200),
  cpf: z
    .string()
    .regex(/^\d{11}$/)
    .optional(),
  cnpj: z
    .string()
    .regex(/^[0-9A-Z]{14}$/)
    .optional(),
  ispbParticipante: z
    .string()
    .regex(/^\d{8}$/)
    .optional(),
  nomeInstituicao: z.string().max(200).optional(),
  agencia: z.string().max(20).optional(),
  conta: z.string().max(40).optional(),
});
export type Pagador = z.infer<typeof pagadorSchema>;

/** The payer, from the PSP's `pagador` extension when it names them and their document; else unknown. */
export function payerOf(pagador: Pagador | undefined): ProviderPayer | null {
  const document = pagador?.cpf ?? pagador?.cnpj;
  if (!pagador || !document) return null;
  return {
    name: pagador.nome,
    document,
    documentType: pagador.cpf ? 'CPF' : 'CNPJ',
    email: null,
    phone: null,
    institution: pagador.nomeInstituicao ?? '',
    ispb: pagador.ispbParticipante ?? '',
    agency: pagador.agencia ?? '',
    account: pagador.conta ?? '',
  };
}

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
