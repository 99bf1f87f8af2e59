/**
 * Delivery history of a merchant's webhooks, and resend: a new delivery of the same event (same
 * eventId and body, so receivers deduplicate), run by its own WebhookDelivery workflow.
 */
import crypto from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { presentDelivery, type AttemptRow, type DeliveryRow } from '../../../core/events/presentDelivery';
import { startDeliveryWorkflow } from '../../../db/events/deliveryWorkflows';
import { ApiError, errors } from '../../errors/apiError';
import type { ListDeliveriesQuery } from './schema';

const queuedMessage = (id: string) =>
  `the delivery is recorded but could not be started now: the webhook dispatcher starts it within seconds once the workflow service answers; follow it with GET /sellers/webhook-deliveries/${id}, do not resend`;

const COLUMNS = `id, event_id, event_type, webhook_id, url, status, attempts, last_status_code, last_error, next_attempt_at, resend_of, created_at, completed_at`;

export class DeliveryService {
  constructor(private readonly deps: { sequelize: Sequelize; temporal: Client; taskQueue: string }) {}

  async listForWebhook(merchantId: string, webhookId: string, q: ListDeliveriesQuery) {
    const [owned] = await this.deps.sequelize.query(
      `SELECT 1 FROM webhook_endpoints WHERE id = :webhookId AND merchant_id = :merchantId`,
      {
        replacements: { webhookId, merchantId },
        type: QueryTypes.SELECT,
      },
    );
    if (!owned) throw errors.notFound('webhook');
    return this.page(`merchant_id = :merchantId AND webhook_id = :webhookId`, { merchantId, webhookId }, q);
  }

  async listForEvent(merchantId: string, eventId: string, q: ListDeliveriesQuery) {
    // Another merchant's event answers 404 like any other id of theirs, not an empty page.
    const [event] = await this.deps.sequelize.query(
      `SELECT 1 FROM outbox_events WHERE id = :eventId AND merchant_id = :merchantId`,
      {
        replacements: { eventId, merchantId },
        type: QueryTypes.SELECT,
      },
    );
    if (!event) throw errors.notFound('event');
    return this.page(`merchant_id = :merchantId AND event_id = :eventId`, { merchantId, eventId }, q);
  }

  async get(merchantId: string, deliveryId: string) {
    const delivery = await this.find(merchantId, deliveryId);
    const attempts = await this.deps.sequelize.query<AttemptRow>(
      `SELECT attempt, url, status_code, success, error, duration_ms, attempted_at FROM webhook_delivery_attempts WHERE delivery_id = :deliveryId ORDER BY attempt`,
      { replacements: { deliveryId }, type: QueryTypes.SELECT },
    );
    return presentDelivery(delivery, attempts);
  }

  /**
   * 201 with the new delivery once its workflow runs; 202 with the delivery `queued` when the row
   * is committed but the start failed (Temporal unreachable): the row still says
   * workflow_started = FALSE, and the OutboxDispatcher's sweep (activities/events/deliveries.ts,
   * startPendingDeliveries, every round: at most 2 s apart) starts it with the worker's own
   * client. An error there would tell the caller nothing was done, and a retry would send the
   * event twice.
   */
  async resend(merchantId: string, deliveryId: string, log?: Logger): Promise<{ status: 201 | 202; body: unknown }> {
    const original = await this.find(merchantId, deliveryId);
    const [endpoint] = await this.deps.sequelize.query<{ active: boolean; url: string }>(
      `SELECT active, url FROM webhook_endpoints WHERE id = :id`,
      {
        replacements: { id: original.webhook_id },
        type: QueryTypes.SELECT,
      },
    );
    if (!endpoint?.active)
      throw new ApiError(
        409,
        'WEBHOOK_DISABLED',
        'the webhook is disabled; enable it (PATCH active: true) before resending',
      );
    const id = crypto.randomUUID();
    await this.deps.sequelize.query(
      `INSERT INTO webhook_deliveries (id, event_id, webhook_id, merchant_id, event_type, url, body, status, resend_of, workflow_started)
       SELECT :id, event_id, webhook_id, merchant_id, event_type, :url, body, 'PENDING', id, FALSE FROM webhook_deliveries WHERE id = :originalId`,
      { replacements: { id, url: endpoint.url, originalId: original.id } },
    );
    try {
      await startDeliveryWorkflow(this.deps.sequelize, this.deps.temporal.workflow, {
        id,
        merchantId,
        taskQueue: this.deps.taskQueue,
      });
    } catch (err) {
      log?.warn(
        { deliveryId: id, error: (err as { name?: unknown })?.name },
        'resend: delivery workflow not started; queued for the dispatcher',
      );
      return {
        status: 202,
        body: { ...presentDelivery(await this.find(merchantId, id)), queued: true, message: queuedMessage(id) },
      };
    }
    return { status: 201, body: presentDelivery(await this.find(merchantId, id)) };
  }

  private async page(where: string, replacements: Record<string, unknown>, q: ListDeliveriesQuery) {
    const filter = q.status ? ` AND status = :status` : '';
    const rows = await this.deps.sequelize.query<DeliveryRow>(
      `SELECT ${COLUMNS} FROM webhook_deliveries WHERE ${where}${filter} ORDER BY created_at DESC, id LIMIT :limit OFFSET :offset`,
      {
        replacements: { ...replacements, status: q.status, limit: q.limit, offset: q.offset },
        type: QueryTypes.SELECT,
      },
    );
    const [{ total }] = await this.deps.sequelize.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM webhook_deliveries WHERE ${where}${filter}`,
      {
        replacements: { ...replacements, status: q.status },
        type: QueryTypes.SELECT,
      },
    );
    return {
      deliveries: rows.map((r) => presentDelivery(r)),
      pagination: { total, limit: q.limit, offset: q.offset, hasMore: q.offset + rows.length < total },
    };
  }

  private async find(merchantId: string, deliveryId: string): Promise<DeliveryRow> {
    const [row] = await this.deps.sequelize.query<DeliveryRow>(
      `SELECT ${COLUMNS} FROM webhook_deliveries WHERE id = :deliveryId AND merchant_id = :merchantId`,
      {
        replacements: { deliveryId, merchantId },
        type: QueryTypes.SELECT,
      },
    );
    if (!row) throw errors.notFound('webhook delivery');
    return row;
  }
}
