/**
 * Webhook delivery activities. `dispatchOutbox` turns committed events into deliveries (one per
 * subscribed active endpoint) and starts one WebhookDelivery workflow each; `attemptDelivery`
 * makes one signed POST and records it; `completeDelivery` closes a delivery that will not be
 * tried again. Each is safe to retry: rows are keyed, attempts are numbered.
 */
import { Context } from '@temporalio/activity';
import { deliveryStore, startDeliveryWorkflow, webhookEndpointStore } from '../../db/events';
import { idempotencyStore } from '../../db/idempotency';
import { requestSignatureStore } from '../../db/identity';
import { dispatchEvents } from './outboxDispatch';
import { queueDisabledNotice } from './disabledNotice';
import { createReplayActivities } from './replay';
import type { Sequelize } from 'sequelize';
import { decryptSecret } from '../../core/crypto/secretBox';
import { checkWebhookUrlSyntax, type PrivateReceiver } from '../../core/net/destination';
import { DestinationRefusedError, postWebhook, type Lookup } from './sender';
import { DELIVERY_TIMEOUT_MS, MAX_RESPONSE_BYTES } from '../../core/events/retrySchedule';
import { retryAfterMs } from '../../core/events/retryAfter';
import { signWebhook, standardWebhookHeaders } from '../../core/events/signature';
import type { AttemptOutcome } from '../../workflows/events/definitions';

/** What a non-2xx answer of a private receiver records after its status code, instead of its body. */
const PRIVATE_ANSWER_NOT_RECORDED = "(a private receiver's answer is not recorded)";

export interface WebhookActivityDeps {
  sequelize: Sequelize;
  /** Decrypts webhook secrets (the same key that encrypts client secrets). */
  secretsKey?: Buffer;
  /** Local receivers are allowed in development and tests only. */
  allowPrivateDestinations?: boolean;
  /** WEBHOOK_PRIVATE_RECEIVERS: private `ip:port`s delivered to all the same, for the merchants each names (production too). */
  privateReceivers?: readonly PrivateReceiver[];
  /** The resolver deliveries connect through (tests inject one); the system's by default. */
  lookup?: Lookup;
  /** WEBHOOK_FIRST_ATTEMPT_LEASE_SECONDS: how long a committing worker holds a first attempt (firstAttempts.ts). */
  firstAttemptLeaseSeconds?: number;
}

export function createWebhookActivities(deps: WebhookActivityDeps) {
  const { sequelize } = deps;

  /**
   * One round of the OutboxDispatcher. It heartbeats all along (its heartbeat timeout is short,
   * workflows/events/outboxDispatcher.ts): a round whose worker died is retried within seconds,
   * and a live but slow round is never taken for a dead one.
   */
  async function dispatchOutbox(args: { limit: number }): Promise<number> {
    const ctx = Context.current();
    ctx.heartbeat();
    const { events } = await whileHeartbeating(ctx, dispatchEvents(sequelize, args));
    await startPendingDeliveries(ctx);
    return events;
  }

  /**
   * The sweep: starts the workflow of every PENDING delivery that has none and whose first-attempt
   * lease expired or never was (activities/events/firstAttempts.ts), e.g. one whose worker died
   * between its commit and its send.
   */
  async function startPendingDeliveries(ctx: Context): Promise<void> {
    const pending = await whileHeartbeating(ctx, deliveryStore.withoutWorkflow(sequelize));
    const start = (d: { id: string; merchantId: string }) =>
      startDeliveryWorkflow(sequelize, ctx.client.workflow, {
        id: d.id,
        merchantId: d.merchantId,
        taskQueue: ctx.info.taskQueue,
      });
    // A few starts at a time: a burst of events must not queue behind one another.
    for (let i = 0; i < pending.length; i += 20) {
      await Promise.all(pending.slice(i, i + 20).map(start));
      ctx.heartbeat();
    }
  }

  async function attemptDelivery(args: { deliveryId: string; attempt: number }): Promise<AttemptOutcome> {
    const d = await deliveryStore.forAttempt(sequelize, args.deliveryId, args.attempt);
    if (!d) return { outcome: 'STOPPED', statusCode: null };
    if (d.status === 'SUCCEEDED') return { outcome: 'DELIVERED', statusCode: null };
    if (d.status !== 'PENDING' || !d.active) return { outcome: 'STOPPED', statusCode: null };
    if (d.recorded) return outcomeOf(d.recorded); // a retry of a recorded attempt answers what it recorded

    if (!deps.secretsKey) throw new Error('webhook secrets key is not configured for this worker');
    const secrets = [decryptSecret(d.secretCiphertext, deps.secretsKey)];
    if (d.previousSecretCiphertext && d.previousSecretExpiresAt && d.previousSecretExpiresAt.getTime() > Date.now()) {
      secrets.push(decryptSecret(d.previousSecretCiphertext, deps.secretsKey));
    }
    const started = Date.now();
    const t = Math.floor(started / 1000);
    let statusCode: number | null = null;
    let error: string | null = null;
    let retryAfter: number | null = null;
    const destination = checkWebhookUrlSyntax(d.url);
    if (!destination.ok) {
      error = 'DESTINATION_NOT_ALLOWED: the URL is not a valid webhook URL';
    } else {
      try {
        // The destination policy is enforced by the connection itself (webhookSender).
        const { response: res, privateReceiver } = await postWebhook(
          destination.url.toString(),
          d.merchantId,
          {
            timeoutMs: DELIVERY_TIMEOUT_MS,
            headers: {
              'content-type': 'application/json',
              'user-agent': 'PixGateway-Webhooks/1.0',
              'gateway-signature': signWebhook(d.body, secrets, t),
              // The event id is the message id: the same on every retry and resend, for deduplication.
              ...standardWebhookHeaders(d.body, secrets, d.eventId, t),
              'gateway-event-id': d.eventId,
              'gateway-delivery-id': args.deliveryId,
              'gateway-delivery-attempt': String(args.attempt),
            },
            body: d.body,
          },
          {
            allowPrivate: deps.allowPrivateDestinations ?? false,
            privateReceivers: deps.privateReceivers,
            lookup: deps.lookup,
          },
        );
        statusCode = res.status;
        retryAfter = retryAfterMs(res.status, res.headers.get('retry-after'), Date.now());
        const excerpt = await readCapped(res);
        // A private receiver is the operator's (WEBHOOK_PRIVATE_RECEIVERS): its error pages may
        // describe our network, so the merchant reads its status code only.
        if (res.status < 200 || res.status >= 300)
          error = privateReceiver
            ? `HTTP ${res.status} ${PRIVATE_ANSWER_NOT_RECORDED}`
            : `HTTP ${res.status}${excerpt ? `: ${excerpt.slice(0, 500)}` : ''}`;
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
    const attempt = {
      deliveryId: args.deliveryId,
      attempt: args.attempt,
      url: d.url,
      statusCode,
      success: error === null,
      error,
      durationMs: Date.now() - started,
      retryAfterMs: retryAfter,
    };
    if (statusCode === 410) {
      // 410 Gone: the receiver says the URL is gone for good; retrying (this or any event) is waste.
      await sequelize.transaction(async (transaction) => {
        await deliveryStore.recordAttempt(sequelize, attempt, transaction);
        await webhookEndpointStore.disableGone(sequelize, d.webhookId, transaction);
      });
    } else {
      await deliveryStore.recordAttempt(sequelize, attempt);
    }
    return outcomeOf(attempt);
  }

  async function scheduleNextAttempt(args: { deliveryId: string; at: string }): Promise<void> {
    await deliveryStore.scheduleNextAttempt(sequelize, args.deliveryId, args.at);
  }

  /**
   * FAILED: retries exhausted. An endpoint with no successful delivery in 3 days is then
   * disabled, so a dead receiver stops costing attempts, and its owners are e-mailed in the same
   * transaction (the merchant re-enables it with PATCH).
   */
  async function completeDelivery(args: { deliveryId: string; status: 'FAILED' | 'CANCELLED' }): Promise<void> {
    const ctx = Context.current();
    await sequelize.transaction(async (transaction) => {
      const webhookId = await deliveryStore.closeDelivery(sequelize, args.deliveryId, args.status, transaction);
      if (!webhookId || args.status !== 'FAILED') return;
      const disabled = await webhookEndpointStore.disableIfDead(sequelize, webhookId, transaction);
      if (!disabled) return;
      if (!deps.secretsKey) throw new Error('webhook secrets key is not configured for this worker');
      await queueDisabledNotice(
        { sequelize, secretsKey: deps.secretsKey, workflows: ctx.client.workflow, taskQueue: ctx.info.taskQueue },
        disabled,
        transaction,
      );
    });
  }

  /** Housekeeping run by the dispatcher: expired idempotency keys and replay-guard entries. */
  async function sweepExpired(): Promise<{ idempotencyKeys: number; signatures: number }> {
    const idempotencyKeys = await idempotencyStore.sweepExpired(sequelize);
    const signatures = await requestSignatureStore.sweepExpired(sequelize);
    return { idempotencyKeys, signatures };
  }

  return {
    dispatchOutbox,
    attemptDelivery,
    scheduleNextAttempt,
    completeDelivery,
    sweepExpired,
    ...createReplayActivities(sequelize),
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;

/**
 * Heartbeats every second while `work` (one long await: a transaction, a query) runs; the SDK
 * sends at most one heartbeat per throttle interval, so this costs nothing more.
 */
async function whileHeartbeating<T>(ctx: Context, work: Promise<T>): Promise<T> {
  const timer = setInterval(() => ctx.heartbeat(), 1_000);
  try {
    return await work;
  } finally {
    clearInterval(timer);
    ctx.heartbeat();
  }
}

/**
 * What the workflow does next, from an attempt (just made or recorded): a 410 stops the delivery
 * (its endpoint is disabled with it), a 429/503 may ask for a longer wait.
 */
function outcomeOf(a: { success: boolean; statusCode: number | null; retryAfterMs: number | null }): AttemptOutcome {
  if (a.success) return { outcome: 'DELIVERED', statusCode: a.statusCode };
  if (a.statusCode === 410) return { outcome: 'STOPPED', statusCode: a.statusCode };
  return a.retryAfterMs
    ? { outcome: 'FAILED', statusCode: a.statusCode, retryAfterMs: a.retryAfterMs }
    : { outcome: 'FAILED', statusCode: a.statusCode };
}

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
