import { z } from 'zod';

export const deliveryStatuses = ['PENDING', 'SUCCEEDED', 'FAILED', 'CANCELLED'] as const;

export const listDeliveriesQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
    status: z.enum(deliveryStatuses).optional(),
  })
  .strict();

export const uuidParam = z.uuid();
export type ListDeliveriesQuery = z.infer<typeof listDeliveriesQuery>;
