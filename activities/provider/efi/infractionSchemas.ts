/**
 * MED at Efí: the infractions against the account (`GET /v2/gn/infracoes`, paged like the other
 * lists) as docs/standards/efi-pix.yaml describes them. Only what the gateway acts on is required.
 * The defence (`POST /v2/gn/infracoes/{idInfracao}/defesa`) answers 201 with no body.
 */
import { z } from 'zod';

export const infractionStatusSchema = z.enum(['ABERTA', 'ACEITA', 'CANCELADA_EFI', 'EM_DEFESA', 'REJEITADA']);
export type EfiInfractionStatus = z.infer<typeof infractionStatusSchema>;

export const efiInfractionSchema = z.object({
  idInfracao: z.union([z.string().min(1), z.number().int()]).transform(String),
  endToEndId: z.string().min(1),
  status: infractionStatusSchema,
  valor: z
    .string()
    .regex(/^\d{1,10}\.\d{2}$/)
    .nullish(),
  /** golpe, aquisição da conta, coerção, acesso fraudulento, outro, desconhecido. */
  tipoSituacao: z.string().nullish(),
  criadoEm: z.string().nullish(),
  dadosAnalise: z
    .object({
      abertura: z.string().nullish(),
      prazoFinalizacao: z.string().nullish(),
      /** When Efí closed the case (ACEITA, REJEITADA, CANCELADA_EFI). */
      finalizacao: z.string().nullish(),
    })
    .partial()
    .nullish(),
});
export type EfiInfraction = z.infer<typeof efiInfractionSchema>;

export const infractionPageSchema = z.object({
  parametros: z.object({
    paginacao: z.object({ paginaAtual: z.number().int().min(0), quantidadeDePaginas: z.number().int().min(0) }),
  }),
  infracoes: z.array(efiInfractionSchema).default([]),
});
