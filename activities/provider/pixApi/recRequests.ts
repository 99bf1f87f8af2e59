/**
 * What the gateway sends to the Pix Automático routes of API Pix (release 2.9.0), checked before
 * it leaves (as requests.ts does for cobs): anchored versions of the document's patterns and the
 * rules its descriptions give (`valorRec` and `valorMinimoRecebedor` never both; an amount more
 * than zero; `contrato` and `objeto` at most 35 characters).
 */
import { z } from 'zod';
import { ID_REC, COBR_TXID } from '../../../core/pixAutomatico/notifications';
import { PIX_AMOUNT } from './schemas';

const positiveAmount = z
  .string()
  .regex(PIX_AMOUNT)
  .refine((v) => /[1-9]/.test(v), 'must be more than zero');
const date = z.iso.date();
const cpf = z.string().regex(/^\d{11}$/);
const cnpj = z.string().regex(/^[0-9A-Z]{14}$/);

/** RecSolicitada (POST /rec). */
export const recRequestSchema = z.strictObject({
  vinculo: z.strictObject({
    contrato: z.string().min(1).max(35),
    devedor: z.union([
      z.strictObject({ cpf, nome: z.string().min(1).max(140) }),
      z.strictObject({ cnpj, nome: z.string().min(1).max(140) }),
    ]),
    objeto: z.string().min(1).max(35),
  }),
  calendario: z
    .strictObject({
      dataInicial: date,
      dataFinal: date.optional(),
      periodicidade: z.enum(['SEMANAL', 'MENSAL', 'TRIMESTRAL', 'SEMESTRAL', 'ANUAL']),
    })
    .refine((c) => c.dataFinal === undefined || c.dataFinal >= c.dataInicial, 'dataFinal before dataInicial'),
  valor: z
    .union([z.strictObject({ valorRec: positiveAmount }), z.strictObject({ valorMinimoRecebedor: positiveAmount })])
    .optional(),
  politicaRetentativa: z.enum(['NAO_PERMITE', 'PERMITE_3R_7D']),
  loc: z.number().int().positive().optional(),
  ativacao: z.strictObject({ dadosJornada: z.strictObject({ txid: z.string().regex(COBR_TXID) }) }).optional(),
});
export type RecRequest = z.infer<typeof recRequestSchema>;

/** SolicRecSolicitada (POST /solicrec): the payer's account at their PSP, where the request is sent. */
export const solicRecRequestSchema = z.strictObject({
  idRec: z.string().regex(ID_REC),
  calendario: z.strictObject({ dataExpiracaoSolicitacao: z.iso.datetime({ offset: true }) }),
  destinatario: z.union([
    z.strictObject({
      conta: z.string().min(1).max(20),
      ispbParticipante: z.string().regex(/^[0-9A-Z]{8}$/),
      agencia: z.string().min(1).max(4).optional(),
      cpf,
    }),
    z.strictObject({
      conta: z.string().min(1).max(20),
      ispbParticipante: z.string().regex(/^[0-9A-Z]{8}$/),
      agencia: z.string().min(1).max(4).optional(),
      cnpj,
    }),
  ]),
});
export type SolicRecRequest = z.infer<typeof solicRecRequestSchema>;

/** CobRSolicitada (PUT /cobr/{txid}, POST /cobr). */
export const cobrRequestSchema = z.strictObject({
  idRec: z.string().regex(ID_REC),
  calendario: z.strictObject({ dataDeVencimento: date }),
  valor: z.strictObject({ original: positiveAmount }),
  ajusteDiaUtil: z.boolean(),
  infoAdicional: z.string().min(1).max(140).optional(),
  recebedor: z.strictObject({
    conta: z.string().min(1).max(20),
    tipoConta: z.enum(['CORRENTE', 'POUPANCA', 'PAGAMENTO']),
    agencia: z.string().min(1).max(4).optional(),
  }),
});
export type CobRRequest = z.infer<typeof cobrRequestSchema>;
