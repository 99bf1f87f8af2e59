/**
 * One delivery attempt: a signed POST to the endpoint, recorded (attempts are numbered, so a
 * retried activity answers what it recorded instead of posting again).
 */
import { deliveryStore, webhookEndpointStore } from '../../db/events';
import { decryptSecret } from '../../core/crypto/secretBox';
import { checkWebhookUrlSyntax } from '../../core/net/destination';
import { DELIVERY_TIMEOUT_MS, MAX_RESPONSE_BYTES } from '../../core/events/retrySchedule';
import { retryAfterMs } from '../../core/events/retryAfter';
import { signWebhook, standardWebhookHeaders } from '../../core/events/signature';
import type { AttemptOutcome } from '../../workflows/events/definitions';
import type { WebhookActivityDeps } from './deps';
import { DestinationRefusedError, postWebhook } from './sender';

/** What a non-2xx answer of a private receiver records after its status code, instead of its body. */
const PRIVATE_ANSWER_NOT_RECORDED = "(a private receiver's answer is not recorded)";

type DeliveryToAttempt = NonNullable<Awaited<ReturnType<typeof deliveryStore.forAttempt>>>;

/** What one POST came to: the receiver's status code (if it answered), our error text, the wait it asked for. */
interface Answer {
  statusCode: number | null;
  error: string | null;
  retryAfterMs: number | null;
}

export async function attemptDelivery(
  deps: WebhookActivityDeps,
  args: { deliveryId: string; attempt: number },
): Promise<AttemptOutcome> {
  const { sequelize } = deps;
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
  const answer = await postSigned(deps, d, args, secrets, started);
  const attempt = {
    deliveryId: args.deliveryId,
    attempt: args.attempt,
    url: d.url,
    statusCode: answer.statusCode,
    success: answer.error === null,
    error: answer.error,
    durationMs: Date.now() - started,
    retryAfterMs: answer.retryAfterMs,
  };
  if (answer.statusCode === 410) {
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

/** The POST, signed with every live secret at `started`; never throws for what the receiver or the network did. */
async function postSigned(
  deps: WebhookActivityDeps,
  d: DeliveryToAttempt,
  args: { deliveryId: string; attempt: number },
  secrets: string[],
  started: number,
): Promise<Answer> {
  const answer: Answer = { statusCode: null, error: null, retryAfterMs: null };
  const t = Math.floor(started / 1000);
  const destination = checkWebhookUrlSyntax(d.url);
  if (!destination.ok) {
    answer.error = 'DESTINATION_NOT_ALLOWED: the URL is not a valid webhook URL';
    return answer;
  }
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
    answer.statusCode = res.status;
    answer.retryAfterMs = retryAfterMs(res.status, res.headers.get('retry-after'), Date.now());
    const excerpt = await readCapped(res);
    // A private receiver is the operator's (WEBHOOK_PRIVATE_RECEIVERS): its error pages may
    // describe our network, so the merchant reads its status code only.
    if (res.status < 200 || res.status >= 300)
      answer.error = privateReceiver
        ? `HTTP ${res.status} ${PRIVATE_ANSWER_NOT_RECORDED}`
        : `HTTP ${res.status}${excerpt ? `: ${excerpt.slice(0, 500)}` : ''}`;
  } catch (err) {
    // Merchants read this back: a refused destination says so and nothing about our network.
    if (err instanceof DestinationRefusedError) answer.error = `${err.code}: ${err.message}`;
    else
      answer.error =
        (err as Error).name === 'TimeoutError'
          ? `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`
          : `connection failed: ${networkCode(err)}`;
  }
  return answer;
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
