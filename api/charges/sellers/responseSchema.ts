/**
 * The seller Pix charge as answered by POST /sellers/pix and GET /sellers/pix/{id}
 * (core/charges/presentSellerCharge.ts). Documentation only: the presenter builds the body and
 * test/integration/openapi.test.ts parses real answers with this schema so the two cannot drift.
 * Objects are not strict: adding a field to the presenter does not break clients or the test.
 */
import { z } from 'zod';
import { chargeEventTypes } from '../../../core/events/events';

const nullableString = (description: string, example?: string) =>
  z
    .string()
    .nullable()
    .meta({ description, ...(example ? { example } : {}) });

const pixPayload = z
  .object({
    qrCode: z.string().meta({ description: 'QR code image: base64 PNG, no `data:` prefix.' }),
    copyPaste: z.string().meta({
      description: 'Pix copy-and-paste code (static EMV BR Code with CRC16).',
      example: '00020126580014br.gov.bcb.pix…6304ABCD',
    }),
    expiresAt: z.iso.datetime().meta({ description: 'When the Pix payload stops accepting payments.' }),
  })
  .meta({ description: 'The Pix payload issued by the provider.' });

const split = z.object({
  id: z.uuid(),
  merchantId: z.uuid(),
  amountCents: z
    .number()
    .int()
    .meta({ description: 'Share in cents (percentages are rounded down to the cent).', example: 3000 }),
  percentage: z
    .number()
    .nullable()
    .meta({ description: 'The percentage requested, or null for a fixed share.', example: 30 }),
});

const webhook = z
  .object({
    id: z.uuid().meta({ description: 'Id of the webhook (GET /sellers/webhooks/{id}, its deliveries); always sent.' }),
    url: z.string().meta({ example: 'https://loja.example/pix-events' }),
    secret: z
      .string()
      .nullable()
      .meta({ description: 'Signing secret, shown only in the 201 of the request that created it; null afterwards.' }),
    events: z.array(z.enum(chargeEventTypes)).meta({
      description:
        'Every charge event (api/sellers/pix/service.ts subscribes the charge-scoped webhook to all of them).',
      example: [...chargeEventTypes],
    }),
  })
  .meta({ description: 'The webhook scoped to this charge, when `webhook_url` was given.' });

const payer = z
  .object({
    name: nullableString('Payer name as reported by the Pix network.', 'Pagador Sandbox'),
    email: nullableString('Payer e-mail, when known.'),
    phone: nullableString('Payer phone, when known.'),
    document: nullableString('CPF or CNPJ, digits only.'),
    documentType: z.enum(['CPF', 'CNPJ']).nullable(),
    institution: nullableString("Payer's bank."),
    agency: nullableString("Payer's branch."),
    account: nullableString("Payer's account."),
  })
  .meta({ description: 'The real payer of the Pix transaction (snapshot); null until paid.' });

const beneficiary = z
  .object({
    id: z.uuid(),
    name: z.string(),
    email: z.string().nullable(),
    document: z.string().nullable(),
    documentType: z.enum(['CPF', 'CNPJ']).nullable(),
    institution: z.string().meta({ example: 'Gateway Pagamentos IP' }),
    account: z.object({
      institution: z.string().meta({ example: 'Gateway Pagamentos IP' }),
      type: z.literal('PAYMENT'),
    }),
  })
  .meta({ description: "Always the merchant that owns the charge, with the service's own payment account." });

export const sellerPixCharge = z.object({
  id: z.uuid().meta({ description: 'Charge id.' }),
  status: z.enum(['PENDING', 'PAID', 'CANCELLED', 'EXPIRED']),
  amountCents: z.number().int().meta({ example: 12345 }),
  description: z.string().meta({ description: 'Empty string when none was given.', example: 'Pedido 1001' }),
  externalRef: z.string().nullable().meta({ example: 'order-1001' }),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  pix: pixPayload.nullable(),
  pixTxid: nullableString('Pix transaction id (26 to 35 characters).'),
  endToEndId: nullableString('Pix end-to-end id, once paid.', 'E99999999202611221530abcdefghijk'),
  splits: z.array(split),
  webhook: webhook.nullable(),
  payer: payer.nullable(),
  beneficiary,
  expiresAt: z.iso.datetime(),
  paidAt: z.iso.datetime().nullable(),
  paidAfterExpiry: z
    .boolean()
    .meta({ description: 'True when a payment arrived after expiry or cancel and was still credited.' }),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
