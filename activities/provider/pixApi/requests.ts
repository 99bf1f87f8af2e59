/**
 * What the gateway sends to API Pix, checked before it leaves: a malformed request is our bug,
 * and the PSP's 400 for it would only say so later, in its own words. Anchored versions of the
 * standard's patterns (schemas.ts), and the limits its descriptions give (CobOperacaoInvalida:
 * `expiracao` must be positive, `valor.original` must not be zero).
 */
import { z } from 'zod';
import { PIX_AMOUNT } from './schemas';

const positiveAmount = z
  .string()
  .regex(PIX_AMOUNT)
  .refine((v) => /[1-9]/.test(v), 'must be more than zero');

export const cobRequestSchema = z.strictObject({
  calendario: z.strictObject({ expiracao: z.number().int().positive().max(2_147_483_647) }),
  valor: z.strictObject({ original: positiveAmount }),
  chave: z.string().min(1).max(77),
  solicitacaoPagador: z.string().max(140).optional(),
  /** Shown to the payer with the cob (the standard: each name and value "deve ser apresentada ao usuário pagador"). */
  infoAdicionais: z
    .array(z.strictObject({ nome: z.string().min(1).max(50), valor: z.string().min(1).max(200) }))
    .max(50)
    .optional(),
  devedor: z
    .union([
      z.strictObject({ cpf: z.string().regex(/^\d{11}$/), nome: z.string().min(1).max(200) }),
      z.strictObject({ cnpj: z.string().regex(/^[0-9A-Z]{14}$/), nome: z.string().min(1).max(200) }),
    ])
    .optional(),
});
export type CobRequest = z.infer<typeof cobRequestSchema>;

export const devolucaoRequestSchema = z.strictObject({
  valor: positiveAmount,
  descricao: z.string().max(140).optional(),
});
export type DevolucaoRequest = z.infer<typeof devolucaoRequestSchema>;

export const webhookUrlSchema = z.url({ protocol: /^https?$/ });

/** `GET /pix` range: RFC 3339 instants, `inicio` not after `fim` (PixConsultaInvalida otherwise). */
export const pixRangeSchema = z
  .strictObject({
    inicio: z.iso.datetime({ offset: true }),
    fim: z.iso.datetime({ offset: true }),
    txid: z
      .string()
      .regex(/^[a-zA-Z0-9]{1,35}$/)
      .optional(),
  })
  .refine((r) => Date.parse(r.inicio) <= Date.parse(r.fim), 'inicio must not be after fim');
export type PixRange = z.infer<typeof pixRangeSchema>;
