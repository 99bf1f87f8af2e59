import { z } from 'zod';
import { MAX_BATCH_ITEMS, MAX_ITEM_AMOUNT_CENTS, MIN_ITEM_AMOUNT_CENTS } from '../../core/payouts/limits';
import { PIX_KEY_TYPES } from '../../core/pixKeys';
import { metadata } from '../validation/metadata';
import { text } from '../validation/text';

/** A payout item's Pix key type: checked on the way in, answered as stored. */
export const payoutPixKeyType = z.enum(PIX_KEY_TYPES as [string, ...string[]]);

export const payoutItemInput = z
  .object({
    pixKey: text().min(1).max(140),
    pixKeyType: payoutPixKeyType,
    amountCents: z.number().int().min(MIN_ITEM_AMOUNT_CENTS).max(MAX_ITEM_AMOUNT_CENTS),
    recipientName: text().trim().min(2).max(140),
    recipientDocument: z
      .string()
      .regex(/^[0-9./ -]+$/, 'digits, optionally with . / - separators')
      .min(11)
      .max(18)
      .optional()
      .meta({
        description: 'CPF or CNPJ, with or without punctuation; stored and sent to the provider as digits only.',
        example: '529.982.247-25',
      }),
    referenceId: text().min(1).max(128).optional(),
  })
  .strict();

export const createPayoutBatchBody = z
  .object({
    idempotencyKey: text().min(8).max(100),
    description: text().max(255).optional(),
    metadata: metadata().optional(),
    items: z.array(payoutItemInput).min(1).max(MAX_BATCH_ITEMS),
  })
  .strict();

export const batchStatuses = ['PROCESSING', 'COMPLETED', 'COMPLETED_WITH_FAILURES', 'FAILED', 'CANCELLED'] as const;
export const itemStatuses = ['PENDING', 'SENDING', 'PAID', 'FAILED', 'CANCELLED'] as const;

export const listBatchesQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
    status: z.enum(batchStatuses).optional(),
    createdFrom: z.iso.datetime({ offset: true }).optional(),
    createdTo: z.iso.datetime({ offset: true }).optional(),
  })
  .strict();

export const listItemsQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    offset: z.coerce.number().int().min(0).max(MAX_BATCH_ITEMS).default(0),
    status: z.enum(itemStatuses).optional(),
  })
  .strict();

export const cancelBatchBody = z.object({ reason: text().min(1).max(255) }).strict();
export const batchIdParam = z.uuid();

export type CreatePayoutBatchBody = z.infer<typeof createPayoutBatchBody>;
export type ListBatchesQuery = z.infer<typeof listBatchesQuery>;
export type ListItemsQuery = z.infer<typeof listItemsQuery>;
