/** The webhook_endpoints table (a merchant's webhooks, and charges' own `webhook_url`): its one writer and the way to read it. */
import { QueryTypes, type CreationAttributes, type Sequelize, type Transaction } from 'sequelize';
import { insertOnce } from '../insertOnce';
import { WebhookEndpoint } from './webhookEndpoint';

/** Creates endpoint `attributes.id` unless it exists (a resumed create); answers the stored one. */
export async function createEndpointOnce(attributes: CreationAttributes<WebhookEndpoint>): Promise<WebhookEndpoint> {
  const { row } = await insertOnce(WebhookEndpoint, attributes, { id: attributes.id });
  return row;
}

/** The webhook of a charge created with `webhook_url`, in the charge's own transaction. */
export async function createChargeWebhook(
  attributes: CreationAttributes<WebhookEndpoint>,
  transaction: Transaction,
): Promise<void> {
  await WebhookEndpoint.create(attributes, { transaction });
}

export function findEndpointById(id: string): Promise<WebhookEndpoint | null> {
  return WebhookEndpoint.findByPk(id);
}

/** The merchant's endpoint; another merchant's is not found. */
export function findEndpoint(merchantId: string, id: string): Promise<WebhookEndpoint | null> {
  return WebhookEndpoint.findOne({ where: { id, merchantId } });
}

export function findChargeWebhook(chargeId: string, transaction?: Transaction): Promise<WebhookEndpoint | null> {
  return WebhookEndpoint.findOne({ where: { chargeId }, transaction });
}

/** A merchant's endpoints, newest first, one page, with the total. */
export function listEndpoints(merchantId: string, page: { limit: number; offset: number }) {
  return WebhookEndpoint.findAndCountAll({
    where: { merchantId },
    order: [
      ['createdAt', 'DESC'],
      ['id', 'ASC'],
    ],
    limit: page.limit,
    offset: page.offset,
  });
}

export type EndpointChanges = Partial<
  Pick<
    WebhookEndpoint,
    | 'url'
    | 'events'
    | 'description'
    | 'active'
    | 'disabledAt'
    | 'disabledReason'
    | 'secretCiphertext'
    | 'previousSecretCiphertext'
    | 'previousSecretExpiresAt'
    | 'rotationId'
  >
>;

export async function updateEndpoint(endpoint: WebhookEndpoint, changes: EndpointChanges): Promise<void> {
  await endpoint.update(changes);
}

/** Whether the merchant has an endpoint with this id. */
export async function isMerchantEndpoint(sequelize: Sequelize, merchantId: string, webhookId: string) {
  const [owned] = await sequelize.query(
    `SELECT 1 FROM webhook_endpoints WHERE id = :webhookId AND merchant_id = :merchantId`,
    {
      replacements: { webhookId, merchantId },
      type: QueryTypes.SELECT,
    },
  );
  return Boolean(owned);
}

/** Whether the endpoint takes deliveries, and its URL now; null when there is none. */
export async function endpointState(
  sequelize: Sequelize,
  id: string,
): Promise<{ active: boolean; url: string } | null> {
  const [endpoint] = await sequelize.query<{ active: boolean; url: string }>(
    `SELECT active, url FROM webhook_endpoints WHERE id = :id`,
    {
      replacements: { id },
      type: QueryTypes.SELECT,
    },
  );
  return endpoint ?? null;
}

/**
 * Disables the endpoint when it is active and had no successful delivery in 3 days, so a dead
 * receiver stops costing attempts (the merchant re-enables it with PATCH). Answers the endpoint
 * when this call disabled it (its owners are told), null otherwise.
 */
export async function disableIfDead(
  sequelize: Sequelize,
  webhookId: string,
  transaction: Transaction,
): Promise<{ id: string; url: string; merchantId: string; disabledAt: Date } | null> {
  const [disabled] = await sequelize.query<{ id: string; url: string; merchant_id: string; disabled_at: Date }>(
    `UPDATE webhook_endpoints SET active = FALSE, disabled_at = now(), updated_at = now(),
       disabled_reason = 'disabled automatically: no successful delivery for 3 days'
     WHERE id = :webhookId AND active AND NOT EXISTS (
       SELECT 1 FROM webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
       WHERE d.webhook_id = :webhookId AND a.success AND a.attempted_at > now() - interval '3 days')
     RETURNING id, url, merchant_id, disabled_at`,
    { replacements: { webhookId }, type: QueryTypes.SELECT, transaction },
  );
  return disabled
    ? {
        id: disabled.id,
        url: disabled.url,
        merchantId: disabled.merchant_id,
        disabledAt: new Date(disabled.disabled_at),
      }
    : null;
}

/** The receiver answered 410 Gone: the endpoint is disabled at once (the merchant re-enables it with PATCH). */
export async function disableGone(sequelize: Sequelize, webhookId: string, transaction: Transaction): Promise<void> {
  await sequelize.query(
    `UPDATE webhook_endpoints SET active = FALSE, disabled_at = now(), updated_at = now(),
       disabled_reason = 'disabled automatically: the receiver answered 410 Gone'
     WHERE id = :webhookId AND active`,
    { replacements: { webhookId }, transaction },
  );
}
