/** The body of POST /charges/{id}/refund (router.ts); the same schema validates and documents. */
import { z } from 'zod';
import { onlyDigits } from '../../core/documents';
import { PIX_KEY_TYPES, normalizePixKey } from '../../core/pixKeys';
import { text } from '../validation/text';
import { MAX_CHARGE_AMOUNT_CENTS } from '../charges/sellers/schema';

const refundDestination = z
  .strictObject({
    pixKeyType: z.enum(PIX_KEY_TYPES as ['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP']),
    pixKey: text().min(1).max(140),
    name: text().trim().min(2).max(140),
    document: z
      .string()
      .regex(/^[0-9./ -]{11,18}$/, 'a CPF or CNPJ')
      .optional(),
  })
  .transform((d, ctx) => {
    const key = normalizePixKey(d.pixKeyType, d.pixKey);
    if (!key.ok) {
      ctx.addIssue({ code: 'custom', path: ['pixKey'], message: key.message });
      return z.NEVER;
    }
    return {
      pixKey: key.key,
      pixKeyType: key.type,
      name: d.name,
      document: d.document ? onlyDigits(d.document) : null,
    };
  })
  .meta({
    description:
      "Boleto charges paid by barcode only (required there): a Pix key of the boleto's payer, where the refund is sent. `document`, when given, must be the payer's. A payment made by Pix is returned to its payer.",
  });

export const refundChargeBody = z.strictObject({
  amountCents: z
    .number()
    .int()
    .min(1)
    .max(MAX_CHARGE_AMOUNT_CENTS)
    .optional()
    .meta({ description: 'Default: everything still refundable.' }),
  reason: text().trim().min(1).max(255),
  destination: refundDestination.optional(),
});
