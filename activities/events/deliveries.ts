/**
 * Webhook delivery activities. `dispatchOutbox` turns committed events into deliveries (one per
 * subscribed active endpoint) and starts one WebhookDelivery workflow each; `attemptDelivery`
 * makes one signed POST and records it; `completeDelivery` closes a delivery that will not be
 * tried again. Each is safe to retry: rows are keyed, attempts are numbered.
 */
import { Context } from '@temporalio/activity';
import { startDeliveryWorkflow } from '../../db/events/deliveryWorkflows';
import { dispatchEvents } from './outboxDispatch';
import { QueryTypes, type Sequelize } from 'sequelize';
import { decryptSecret } from '../../core/crypto/secretBox';
import { checkWebhookUrlSyntax } from '../../core/net/destination';
import { DestinationRefusedError, postWebhook, type Lookup } from './sender';
import { DELIVERY_TIMEOUT_MS, MAX_RESPONSE_BYTES } from '../../core/events/retrySchedule';
import { signWebhook } from '../../core/events/signature';
import { affectedRows } from '../../db/affectedRows';
import type { AttemptOutcome } from '../../workflows/events/definitions';

export interface WebhookActivityDeps {
  sequelize: Sequelize;
  /** Decrypts webhook secrets (the same key that encrypts client secrets). */
  secretsKey?: Buffer;
  /** Local receivers are allowed in development and tests only. */
  allowPrivateDestinations?: boolean;
  /** The resolver deliveries connect through (tests inject one); the system's by default. */
  lookup?: Lookup;
}

export function createWebhookActivities(deps: WebhookActivityDeps) {
  const { sequelize } = deps;

  async function dispatchOutbox(args: { limit: number }): Promise<number> {
    const { events } = await dispatchEvents(sequelize, args);
    await startPendingDeliveries();
    return events;
  }

  /** Starts the workflow of every delivery that has none yet (also those a crash left behind). */
  async function startPendingDeliveries(): Promise<void> {
    const ctx = Context.current();
    const pending = await sequelize.query<{ id: string; merchant_id: string }>(
      `SELECT id, merchant_id FROM webhook_deliveries WHERE NOT workflow_started ORDER BY created_at LIMIT 500`,
      { type: QueryTypes.SELECT },
    );
    const start = (d: { id: string; merchant_id: string }) =>
      startDeliveryWorkflow(sequelize, ctx.client.workflow, {
        id: d.id,
        merchantId: d.merchant_id,
        taskQueue: ctx.info.taskQueue,
      });
    // A few starts at a time: a burst of events must not queue behind one another.
    for (let i = 0; i < pending.length; i += 20) await Promise.all(pending.slice(i, i + 20).map(start));
  }

  async function attemptDelivery(args: { deliveryId: string; attempt: number }): Promise<AttemptOutcome> {
    const [d] = await sequelize.query<{
      status: string;
      body: string;
      event_id: string;
      url: string;
      active: boolean;
      secret_ciphertext: string;
      previous_secret_ciphertext: string | null;
      previous_secret_expires_at: Date | null;
    }>(
      `SELECT d.status, d.body, d.event_id, e.url, e.active, e.secret_ciphertext, e.previous_secret_ciphertext, e.previous_secret_expires_at
       FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.webhook_id WHERE d.id = :deliveryId`,
      { replacements: args, type: QueryTypes.SELECT },
    );
    if (!d) return { outcome: 'STOPPED', statusCode: null };
    if (d.status === 'SUCCEEDED') return { outcome: 'DELIVERED', statusCode: null };
    if (d.status !== 'PENDING' || !d.active) return { outcome: 'STOPPED', statusCode: null };
    const [done] = await sequelize.query<{ success: boolean; status_code: number | null }>(
      `SELECT success, status_code FROM webhook_delivery_attempts WHERE delivery_id = :deliveryId AND attempt = :attempt`,
      { replacements: args, type: QueryTypes.SELECT },
    );
    if (done) return { outcome: done.success ? 'DELIVERED' : 'FAILED', statusCode: done.status_code }; // a retry of a recorded attempt

    if (!deps.secretsKey) throw new Error('webhook secrets key is not configured for this worker');
    const secrets = [decryptSecret(d.secret_ciphertext, deps.secretsKey)];
    if (
      d.previous_secret_ciphertext &&
      d.previous_secret_expires_at &&
      new Date(d.previous_secret_expires_at).getTime() > Date.now()
    ) {
      secrets.push(decryptSecret(d.previous_secret_ciphertext, deps.secretsKey));
    }
    const started = Date.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    const destination = checkWebhookUrlSyntax(d.url);
    if (!destination.ok) {
      error = 'DESTINATION_NOT_ALLOWED: the URL is not a valid webhook URL';
    } else {
      try {
        // The destination policy is enforced by the connection itself (webhookSender).
        const res = await postWebhook(
          destination.url.toString(),
          {
            timeoutMs: DELIVERY_TIMEOUT_MS,
            headers: {
              'content-type': 'application/json',
              'user-agent': 'PixGateway-Webhooks/1.0',
              'gateway-signature': signWebhook(d.body, secrets, Math.floor(Date.now() / 1000)),
              'gateway-event-id': d.event_id,
              'gateway-delivery-id': args.deliveryId,
              'gateway-delivery-attempt': String(args.attempt),
            },
            body: d.body,
          },
          { allowPrivate: deps.allowPrivateDestinations ?? false, lookup: deps.lookup },
        );
        statusCode = res.status;
        const excerpt = await readCapped(res);
        if (res.status < 200 || res.status >= 300)
          error = `HTTP ${res.status}${excerpt ? `: ${excerpt.slice(0, 500)}` : ''}`;
      } catch (err) {
        // Merchants read this back: a refused destination says so and nothing about our network.
        if (err instanceof DestinationRefusedError) error = `${err.code}: ${err.message}`;
        else
          error =
            (err as Error).name === 'TimeoutError'
              ? `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`
              : `connection failed: ${networkCode(err)}`;
      }
    }
    const success = error === null;
    await sequelize.transaction(async (transaction) => {
      await sequelize.query(
        `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, url, status_code, success, error, duration_ms)
         VALUES (:deliveryId, :attempt, :url, :statusCode, :success, :error, :durationMs) ON CONFLICT DO NOTHING`,
        {
          replacements: { ...args, url: d.url, statusCode, success, error, durationMs: Date.now() - started },
          transaction,
        },
      );
      await sequelize.query(
        `UPDATE webhook_deliveries SET attempts = GREATEST(attempts, :attempt), last_status_code = :statusCode, last_error = :error,
           status = CASE WHEN :success THEN 'SUCCEEDED' ELSE status END,
           completed_at = CASE WHEN :success THEN now() ELSE completed_at END, updated_at = now()
         WHERE id = :deliveryId AND status = 'PENDING'`,
        { replacements: { ...args, statusCode, error, success }, transaction },
      );
    });
    return { outcome: success ? 'DELIVERED' : 'FAILED', statusCode };
  }

  async function scheduleNextAttempt(args: { deliveryId: string; at: string }): Promise<void> {
    await sequelize.query(
      `UPDATE webhook_deliveries SET next_attempt_at = :at, updated_at = now() WHERE id = :deliveryId AND status = 'PENDING'`,
      { replacements: args },
    );
  }

  /**
   * FAILED: retries exhausted. An endpoint with no successful delivery in 3 days is then
   * disabled, so a dead receiver stops costing attempts (the merchant re-enables it with PATCH).
   */
  async function completeDelivery(args: { deliveryId: string; status: 'FAILED' | 'CANCELLED' }): Promise<void> {
    await sequelize.transaction(async (transaction) => {
      const [row] = await sequelize.query<{ webhook_id: string }>(
        `UPDATE webhook_deliveries SET status = :status, completed_at = now(), next_attempt_at = NULL, updated_at = now()
         WHERE id = :deliveryId AND status = 'PENDING' RETURNING webhook_id`,
        { replacements: args, type: QueryTypes.SELECT, transaction },
      );
      if (!row || args.status !== 'FAILED') return;
      await sequelize.query(
        `UPDATE webhook_endpoints SET active = FALSE, disabled_at = now(), updated_at = now(),
           disabled_reason = 'disabled automatically: no successful delivery for 3 days'
         WHERE id = :webhookId AND active AND NOT EXISTS (
           SELECT 1 FROM webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
           WHERE d.webhook_id = :webhookId AND a.success AND a.attempted_at > now() - interval '3 days')`,
        { replacements: { webhookId: row.webhook_id }, transaction },
      );
    });
  }

  /** Housekeeping run by the dispatcher: expired idempotency keys and replay-guard entries. */
  async function sweepExpired(): Promise<{ idempotencyKeys: number; signatures: number }> {
    const [, keys] = await sequelize.query(`DELETE FROM idempotency_records WHERE expires_at < now()`);
    const [, signatures] = await sequelize.query(`DELETE FROM request_signatures_seen WHERE expires_at < now()`);
    return { idempotencyKeys: affectedRows(keys), signatures: affectedRows(signatures) };
  }

  return { dispatchOutbox, attemptDelivery, scheduleNextAttempt, completeDelivery, sweepExpired };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;

/** A network failure as a bare code (ECONNREFUSED, ENOTFOUND…): the message may name addresses. */
function networkCode(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown } }).cause;
  const code = cause?.code ?? (err as { code?: unknown }).code;
  return typeof code === 'string' && /^[A-Z0-9_]{2,40}$/.test(code) ? code : 'NETWORK_ERROR';
}

async function readCapped(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < MAX_RESPONSE_BYTES) {
      const { done, value } = await reader.read();
      if (done || !value) break;
      chunks.push(value);
      size += value.length;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString('utf8');
}
