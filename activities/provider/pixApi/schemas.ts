/**
 * API Pix v2 answers as the BCB's document (release 2.9.0) defines them, checked with zod so a
 * PSP bug or a proxy's page surfaces as a ProviderError at the edge, not as an undefined field
 * deep inside a workflow. Field names are the standard's (Portuguese) on purpose: these types
 * mirror the wire, and the wiring translates them into the gateway's own.
 *
 * The document's own patterns are unanchored (`\d{1,10}\.\d{2}` matches "x12.345"); ours are
 * anchored. Where the document contradicts its own examples or marks as required a field the
 * gateway never reads, the schema follows the examples and says so.
 */
import { z } from 'zod';
import { pagadorSchema } from '../../../core/pix/receivedPix';

export const TXID = /^[a-zA-Z0-9]{26,35}$/;
/** A Pix's txid as the PSP reports it: the standard allows 1 to 35 on received Pix (static codes). */
export const PIX_TXID = /^[a-zA-Z0-9]{1,35}$/;
export const END_TO_END_ID = /^[a-zA-Z0-9]{32}$/;
export const DEVOLUCAO_ID = /^[a-zA-Z0-9]{1,35}$/;
export const PIX_AMOUNT = /^\d{1,10}\.\d{2}$/;

const amount = z.string().regex(PIX_AMOUNT);
/** RFC 3339, as the standard requires of every timestamp: an offset or Z is mandatory. */
const timestamp = z.iso.datetime({ offset: true });

export const cobStatusSchema = z.enum(['ATIVA', 'CONCLUIDA', 'REMOVIDA_PELO_USUARIO_RECEBEDOR', 'REMOVIDA_PELO_PSP']);
export type CobStatus = z.infer<typeof cobStatusSchema>;

export const devolucaoStatusSchema = z.enum(['EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO']);
export type DevolucaoStatus = z.infer<typeof devolucaoStatusSchema>;

export const devolucaoSchema = z.object({
  id: z.string().regex(DEVOLUCAO_ID),
  rtrId: z.string().regex(END_TO_END_ID),
  valor: amount,
  natureza: z.string().optional(),
  descricao: z.string().optional(),
  horario: z.object({ solicitacao: timestamp.optional(), liquidacao: timestamp.optional() }),
  status: devolucaoStatusSchema,
  motivo: z.string().optional(),
});
export type Devolucao = z.infer<typeof devolucaoSchema>;

export const pixSchema = z.object({
  endToEndId: z.string().regex(END_TO_END_ID),
  txid: z.string().regex(PIX_TXID).optional(),
  valor: amount,
  chave: z.string().max(77).optional(),
  horario: timestamp,
  infoPagador: z.string().optional(),
  devolucoes: z.array(devolucaoSchema).optional(),
  pagador: pagadorSchema.optional().catch(undefined),
});
export type Pix = z.infer<typeof pixSchema>;

const personSchema = z.union([
  z.object({ cpf: z.string(), nome: z.string() }),
  z.object({ cnpj: z.string(), nome: z.string() }),
]);

/** CobCompleta (GET) and CobGerada (PUT, PATCH): the second is the first without `pix`. */
export const cobSchema = z.object({
  txid: z.string().regex(TXID),
  calendario: z.object({ criacao: timestamp, expiracao: z.number().int().positive() }),
  revisao: z.number().int().nonnegative(),
  status: cobStatusSchema,
  valor: z.object({ original: amount }),
  chave: z.string().max(77),
  // A location is scheme-less in the standard's own examples ("pix.example.com/qr/..."), so it
  // is read as text, not as a URL.
  location: z.string().max(77).optional(),
  pixCopiaECola: z.string().max(512).optional(),
  solicitacaoPagador: z.string().optional(),
  devedor: personSchema.optional(),
  pix: z.array(pixSchema).optional(),
});
export type Cob = z.infer<typeof cobSchema>;

export const paginacaoSchema = z.object({
  paginaAtual: z.number().int().nonnegative(),
  itensPorPagina: z.number().int().positive(),
  // The standard says minimum 1; an empty result with 0 pages is read as what it means.
  quantidadeDePaginas: z.number().int().nonnegative(),
  quantidadeTotalDeItens: z.number().int().nonnegative(),
});

/**
 * PixConsultados. The document marks `cobs` as required here (a copy-paste slip: the list is
 * `pix`), so `pix` is read as optional: a page with no Pix may omit it.
 */
export const pixPageSchema = z.object({
  parametros: z.object({ inicio: timestamp, fim: timestamp, paginacao: paginacaoSchema }),
  pix: z.array(pixSchema).optional(),
});

/**
 * WebhookCompleto. The document requires a `cnpj` its own example leaves out (the example has
 * `chave`); the gateway reads neither, so both are optional.
 */
export const webhookSchema = z.object({
  webhookUrl: z.string().min(1),
  chave: z.string().optional(),
  cnpj: z.string().optional(),
  criacao: timestamp,
});
export type Webhook = z.infer<typeof webhookSchema>;

/** RFC 7807 problem (Problema), with the standard's `violacoes`. Lenient: only `type` identifies. */
export const problemSchema = z.object({
  type: z.string().min(1),
  title: z.string().optional(),
  status: z.number().int().optional(),
  detail: z.string().optional(),
  correlationId: z.string().optional(),
  violacoes: z
    .array(z.object({ razao: z.string().optional(), propriedade: z.string().optional(), valor: z.string().optional() }))
    .optional(),
});
export type Problem = z.infer<typeof problemSchema>;

/** RFC 6749 §5.1. `expires_in` is RECOMMENDED only, and some PSPs send it as a string. */
export const tokenResponseSchema = z.object({
  access_token: z.string().min(1),
  token_type: z.string().refine((t) => t.toLowerCase() === 'bearer', 'only bearer tokens are supported'),
  expires_in: z.coerce.number().int().positive().optional(),
});
