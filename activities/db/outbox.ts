/**
 * Durable event outbox: events are written in the same DB transaction as the state change that
 * causes them, keyed so a retried activity records each event once. Webhook delivery reads here.
 */
import crypto from 'node:crypto';
import type { Transaction } from 'sequelize';
import { OutboxEvent } from '../../db/models';

export interface OutboxEventInput {
  type: string;
  merchantId: string;
  aggregateType: string;
  aggregateId: string;
  payload: Record<string, unknown>;
}

export async function recordEvent(event: OutboxEventInput, transaction: Transaction): Promise<void> {
  await OutboxEvent.findOrCreate({
    where: { dedupKey: `${event.type}:${event.aggregateId}` },
    defaults: {
      id: crypto.randomUUID(),
      dedupKey: `${event.type}:${event.aggregateId}`,
      merchantId: event.merchantId,
      type: event.type,
      aggregateType: event.aggregateType,
      aggregateId: event.aggregateId,
      payload: event.payload,
      dispatchedAt: null,
    },
    transaction,
  });
}
