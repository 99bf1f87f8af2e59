/**
 * Delivery history of a merchant's webhooks, and resend: a new delivery of the same event (same
 * eventId and body, so receivers deduplicate), run by its own WebhookDelivery workflow.
 */
import type { Sequelize } from 'sequelize';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { presentDelivery, type Delivery } from '../../../core/events/presentDelivery';
import { deliveryStore, outboxStore, startDeliveryWorkflow, webhookEndpointStore } from '../../../db/events';
import { ApiError, errors } from '../../errors/apiError';
import type { ListDeliveriesQuery } from './schema';

const queuedMessage = (id: string) =>
  `the delivery is recorded but could not be started now: the webhook dispatcher starts it within seconds once the workflow service answers; follow it with GET /sellers/webhook-deliveries/${id}, do not resend`;

export class DeliveryService {
  constructor(private readonly deps: { sequelize: Sequelize; temporal: Client; taskQueue: string }) {}

  async listForWebhook(merchantId: string, webhookId: string, q: ListDeliveriesQuery) {
    if (!(await webhookEndpointStore.isMerchantEndpoint(this.deps.sequelize, merchantId, webhookId)))
      throw errors.notFound('webhook');
    return this.page({ merchantId, webhookId }, q);
  }

  async listForEvent(merchantId: string, eventId: string, q: ListDeliveriesQuery) {
    // Another merchant's event answers 404 like any other id of theirs, not an empty page.
    if (!(await outboxStore.isMerchantEvent(this.deps.sequelize, merchantId, eventId))) throw errors.notFound('event');
    return this.page({ merchantId, eventId }, q);
  }

  async get(merchantId: string, deliveryId: string) {
    const delivery = await this.find(merchantId, deliveryId);
    const attempts = await deliveryStore.attemptsOf(this.deps.sequelize, deliveryId);
    return presentDelivery(delivery, attempts);
  }

  /**
   * 201 with the new delivery once its workflow runs; 202 with the delivery `queued` when the row
   * is committed but the start failed (Temporal unreachable): the row still says
   * workflow_started = FALSE, and the OutboxDispatcher's sweep (activities/events/dispatchOutbox.ts,
   * startPendingDeliveries, every round: at most 2 s apart) starts it with the worker's own
   * client. An error there would tell the caller nothing was done, and a retry would send the
   * event twice.
   */
  async resend(
    merchantId: string,
    deliveryId: string,
    id: string,
    log?: Logger,
  ): Promise<{ status: 201 | 202; body: unknown }> {
    const original = await this.find(merchantId, deliveryId);
    // `id` is the idempotency claim's resource id: a request that took the claim over finishes
    // the resend its holder made (starting its workflow if need be) instead of making another.
    const made = await deliveryStore.findDelivery(this.deps.sequelize, merchantId, id);
    if (!made) {
      const endpoint = await webhookEndpointStore.endpointState(this.deps.sequelize, original.webhookId);
      if (!endpoint?.active)
        throw new ApiError(
          409,
          'WEBHOOK_DISABLED',
          'the webhook is disabled; enable it (PATCH active: true) before resending',
        );
      await deliveryStore.insertResend(this.deps.sequelize, { id, url: endpoint.url, originalId: original.id });
    }
    // The row as committed: a 202 answers what was queued, not what the dispatcher's sweep (at
    // most 2 s later) may already have done with it by the time this answer is written.
    const queued = presentDelivery(await this.find(merchantId, id));
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
        body: { ...queued, queued: true, message: queuedMessage(id) },
      };
    }
    return { status: 201, body: presentDelivery(await this.find(merchantId, id)) };
  }

  private async page(
    of: { merchantId: string } & ({ webhookId: string } | { eventId: string }),
    q: ListDeliveriesQuery,
  ) {
    const { deliveries, total } = await deliveryStore.listDeliveries(this.deps.sequelize, of, q);
    return {
      deliveries: deliveries.map((r) => presentDelivery(r)),
      pagination: { total, limit: q.limit, offset: q.offset, hasMore: q.offset + deliveries.length < total },
    };
  }

  private async find(merchantId: string, deliveryId: string): Promise<Delivery> {
    const row = await deliveryStore.findDelivery(this.deps.sequelize, merchantId, deliveryId);
    if (!row) throw errors.notFound('webhook delivery');
    return row;
  }
}
