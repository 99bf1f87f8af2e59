/** Bodies and answers of /checkout/sessions (application API); the same schemas validate and document. */
import { z } from 'zod';
import { metadata } from '../../validation/metadata';
import { httpUrl, text } from '../../validation/text';
import { MAX_CHARGE_AMOUNT_CENTS } from '../../charges/sellers/schema';

export const SESSION_STATUSES = ['CREATED', 'OPENED', 'COMPLETED', 'EXPIRED'] as const;

export const createSessionBody = z
  .strictObject({
    merchantId: z.uuid(),
    amountCents: z.number().int().min(1).max(MAX_CHARGE_AMOUNT_CENTS),
    items: z
      .array(
        z.strictObject({
          name: text().trim().min(1).max(140),
          quantity: z.number().int().min(1).max(1000),
          unitAmountCents: z.number().int().min(1).max(MAX_CHARGE_AMOUNT_CENTS),
        }),
      )
      .min(1)
      .max(50)
      .optional()
      .describe('Shown on the page; when given, Σ quantity × unitAmountCents must equal amountCents.'),
    successUrl: httpUrl()
      .max(2048)
      .optional()
      .describe('Where the page sends the buyer once paid (https only in production).'),
    cancelUrl: httpUrl().max(2048).optional().describe('Where the page links back to (https only in production).'),
    externalRef: text().max(128).optional(),
    metadata: metadata().optional(),
  })
  .superRefine((body, ctx) => {
    if (!body.items) return;
    const total = body.items.reduce((sum, item) => sum + item.quantity * item.unitAmountCents, 0);
    if (total !== body.amountCents)
      ctx.addIssue({
        code: 'custom',
        path: ['items'],
        message: `Σ quantity × unitAmountCents is ${total}, not amountCents ${body.amountCents}`,
      });
  });
export type CreateSessionBody = z.output<typeof createSessionBody>;

export const sessionIdParam = z.uuid();

export const checkoutSession = z.object({
  id: z.uuid(),
  merchantId: z.uuid(),
  status: z
    .enum(SESSION_STATUSES)
    .describe('CREATED → OPENED (page first viewed) → COMPLETED (paid) | EXPIRED (expired or cancelled unpaid).'),
  amountCents: z.number().int(),
  url: z.string().describe('The hosted checkout page.'),
  expiresAt: z.iso.datetime(),
  createdAt: z.iso.datetime(),
  chargeId: z.uuid().describe('The Pix charge behind the session (GET /charges/{id}; refund it there).'),
});

export const checkoutSessionStatus = z.object({
  id: z.uuid(),
  status: z.enum(SESSION_STATUSES),
  updatedAt: z.iso.datetime(),
});
