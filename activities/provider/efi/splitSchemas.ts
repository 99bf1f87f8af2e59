/**
 * What Efí's Split Pix routes answer (the SDK's PixSplitConfigResponseSchema,
 * PixSplitDetailConfigResponseSchema and PixSplitDetailChargeResponseSchema in
 * `efipay/sdk-node-apis-efi` src/types/pix.ts), checked before anything is read from them. Only
 * what the gateway acts on is required; the link and the unlink answer without a body.
 */
import { z } from 'zod';

const valor = z.string().regex(/^\d{1,10}\.\d{2}$/);
const share = z.object({ tipo: z.enum(['porcentagem', 'fixo']), valor });

/** A configuration id (ours: core/connections/efiSplitConfig.ts splitConfigIdFor): 1 to 35 alphanumerics. */
export const SPLIT_CONFIG_ID = /^[a-zA-Z0-9]{1,35}$/;

/** 200/201 of PUT /v2/gn/split/config/{id}, 200 of GET (which adds `revisao`). */
export const splitConfigSchema = z.object({
  id: z.string().min(1),
  status: z.string().min(1),
  descricao: z.string().nullish(),
  split: z.object({
    divisaoTarifa: z.enum(['assumir_total', 'proporcional']),
    minhaParte: share,
    repasses: z.array(
      share.extend({
        favorecido: z.object({ conta: z.string(), cpf: z.string().optional(), cnpj: z.string().optional() }),
      }),
    ),
  }),
  revisao: z.number().int().min(0).nullish(),
});
export type EfiSplitConfig = z.infer<typeof splitConfigSchema>;

/** 200 of GET /v2/gn/split/cob/{txid}: the cob (CobCompleta) and the configuration linked to it. */
export const cobSplitSchema = z.object({
  txid: z.string().min(1),
  status: z.string().min(1),
  config: z.object({ id: z.string().min(1), status: z.string().nullish(), descricao: z.string().nullish() }),
});
export type EfiCobSplit = z.infer<typeof cobSplitSchema>;
