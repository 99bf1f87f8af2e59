import { z } from 'zod';
import { httpUrl, text } from '../../validation/text';
import { subscribableEventTypes } from '../../../core/events/events';

const eventList = z
  .array(z.enum(subscribableEventTypes))
  .min(1)
  .max(subscribableEventTypes.length)
  .refine((events) => new Set(events).size === events.length, 'events must not repeat')
  .meta({ uniqueItems: true });

const url = httpUrl().max(2048).meta({
  description:
    'Absolute http(s) URL without credentials; outside development it must resolve to public addresses only.',
  example: 'https://loja.example/pix-events',
});

export const createWebhookBody = z
  .object({
    url,
    events: eventList,
    description: text().max(255).optional(),
  })
  .strict();

export const updateWebhookBody = z
  .object({
    url: url.optional(),
    events: eventList.optional(),
    description: text().max(255).nullable().optional(),
    active: z.boolean().optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'give at least one field to change')
  .meta({ minProperties: 1 });

export const listWebhooksQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
  })
  .strict();

export const webhookIdParam = z.uuid();

export type CreateWebhookBody = z.infer<typeof createWebhookBody>;
export type UpdateWebhookBody = z.infer<typeof updateWebhookBody>;
