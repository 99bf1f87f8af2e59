/**
 * What Efí's send, query, balance and MED routes answer (docs/standards/efi-pix.yaml, written from
 * Efí's public material), checked before anything is read from them. Only the fields the gateway
 * acts on are required; the rest pass through untouched.
 */
import { z } from 'zod';

const valor = z.string().regex(/^\d{1,10}\.\d{2}$/);
const instant = z.string().min(1);

/** idEnvio: 1 to 35 alphanumerics, chosen by us (core/pix/apiPixIds.ts idEnvioFor). */
export const ID_ENVIO = /^[a-zA-Z0-9]{1,35}$/;
export const END_TO_END_ID = /^[a-zA-Z0-9]{32}$/;

export const efiErrorSchema = z.object({ nome: z.string().min(1).max(100), mensagem: z.string().optional() });

export const sendStatusSchema = z.enum(['EM_PROCESSAMENTO', 'REALIZADO', 'NAO_REALIZADO']);
export type SendStatus = z.infer<typeof sendStatusSchema>;

/** 201 of PUT /v3/gn/pix/{idEnvio}. */
export const sendAnswerSchema = z.object({
  idEnvio: z.string(),
  e2eId: z.string().nullish(),
  valor,
  horario: z.object({ solicitacao: instant }).partial().nullish(),
  status: sendStatusSchema,
});
export type SendAnswer = z.infer<typeof sendAnswerSchema>;

/** ISO 20022 reason of a NAO_REALIZADO (AC03, AM04, …), with Efí's words. */
export const sendErrorSchema = z.object({
  codigo: z.string().max(10).nullish(),
  origem: z.string().nullish(),
  motivo: z.string().nullish(),
});

/** A devolução of a sent Pix: the recipient sent (part of) it back. */
export const sentReturnSchema = z.object({
  id: z.string().min(1).max(100),
  rtrId: z.string().nullish(),
  valor,
  status: z.string(),
  horario: z.object({ solicitacao: instant.nullish(), liquidacao: instant.nullish() }).partial().nullish(),
});
export type SentReturn = z.infer<typeof sentReturnSchema>;

/** GET /v2/gn/pix/enviados/id-envio/{idEnvio}, /enviados/{e2eId}, an entry of the list. */
export const sentPixSchema = z.object({
  endToEndId: z.string().nullish(),
  idEnvio: z.string().nullish(),
  valor,
  status: sendStatusSchema,
  chave: z.string().nullish(),
  horario: z.object({ solicitacao: instant.nullish(), liquidacao: instant.nullish() }).partial().nullish(),
  erro: sendErrorSchema.nullish(),
  gnExtras: z.object({ idEnvio: z.string().nullish(), erro: sendErrorSchema.nullish() }).partial().nullish(),
  devolucoes: z.array(sentReturnSchema).nullish(),
});
export type SentPix = z.infer<typeof sentPixSchema>;

export const sentPageSchema = z.object({
  parametros: z.object({
    paginacao: z.object({
      paginaAtual: z.number().int().min(0),
      quantidadeDePaginas: z.number().int().min(0),
    }),
  }),
  pix: z.array(sentPixSchema).default([]),
});

export const balanceSchema = z.object({ saldo: valor });
