/**
 * Body of a provider payment callback (core/provider.ts ProviderCallback). Validates the request
 * in router.ts and documents it in openapi.ts; `.meta()` adds descriptions only. Unknown charge
 * fields pass through: the provider may send more than we read.
 */
import { z } from 'zod';
import { callbackOutcomes } from '../../../db/charges';

export const providerCallbackBody = z
  .object({
    eventId: z
      .string()
      .min(1)
      .max(200)
      .meta({ description: 'Unique per event; retries of one event reuse it.', example: 'sbx_evt_01HZX' }),
    type: z.string().min(1).max(100).meta({ example: 'charge.paid' }),
    occurredAt: z.string().meta({ description: 'ISO 8601.' }),
    charge: z
      .object({
        id: z.string().min(1).max(200).meta({ description: 'Provider charge id.', example: 'sbx_ch_01HZX' }),
        status: z.string().meta({ example: 'PAID' }),
        amountCents: z.number().int().positive(),
        endToEndId: z.string().nullable(),
        paidAt: z.string().nullable(),
        payer: z.record(z.string(), z.unknown()).nullable(),
      })
      .passthrough()
      .optional()
      .meta({ description: "charge.paid: the provider's charge as it is now." }),
    boleto: z
      .object({
        id: z.string().min(1).max(200).meta({ description: 'Provider boleto id.', example: 'sbx_bol_01HZX' }),
        reference: z.string().max(200),
        status: z.string().meta({ example: 'PAID' }),
        amountCents: z.number().int().positive(),
        paidAt: z.string().nullable(),
        payment: z
          .object({
            via: z.string(),
            amountCents: z.number().int().positive(),
            paidAt: z.string(),
            endToEndId: z.string().nullable(),
            payer: z.record(z.string(), z.unknown()).nullable(),
          })
          .passthrough()
          .nullable(),
      })
      .passthrough()
      .optional()
      .meta({ description: "boleto.paid: the provider's boleto as it is now (paid by barcode or by its Pix)." }),
  })
  .meta({ description: 'A payment callback from the provider: `charge` for charge.paid, `boleto` for boleto.paid.' });

/** What a callback route answers it made of a claim (db/charges/paymentClaims.ts decides it). */
export const callbackOutcome = z.enum(callbackOutcomes);
