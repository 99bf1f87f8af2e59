/**
 * Webhook endpoints of a merchant. Secrets are random, differ from the client secret, are shown
 * only when created or rotated (a replay of the create shows `secret: null`), and are stored
 * encrypted because deliveries are signed with them. After a rotation the previous secret keeps
 * signing beside the new one for ROTATION_OVERLAP_HOURS, so receivers can switch without loss.
 * Re-enabling a disabled endpoint starts its WebhookReplay: the events it missed, oldest first.
 */
import type { Client } from '@temporalio/client';
import { decryptSecret, encryptSecret } from '../../../core/crypto/secretBox';
import { presentWebhookEndpoint } from '../../../core/events/presentEndpoint';
import { newWebhookSecret } from '../../../core/events/secret';
import { webhookEndpointStore, type WebhookEndpoint } from '../../../db/events';
import { errors } from '../../errors/apiError';
import { startWorkflow } from '../../../core/temporal/workflows';
import { replayWorkflowId, webhookReplayWorkflow } from '../../../workflows/events/definitions';
import { assertWebhookDestination, type DestinationPolicy } from '../destinationPolicy';
import type { CreateWebhookBody, UpdateWebhookBody } from './schema';

export const ROTATION_OVERLAP_HOURS = 24;

/** What a replay shows: a secret is shown once. */
export const redactSecret = (body: unknown) => ({ ...(body as Record<string, unknown>), secret: null });

export class WebhookService {
  constructor(
    private readonly deps: {
      encryptionKey: Buffer;
      destinations: DestinationPolicy;
      temporal: Client;
      taskQueue: string;
    },
  ) {}

  /** Creates endpoint `id` (the idempotency claim's resource id); its URL is checked (DNS) inside the claim. */
  async create(merchantId: string, body: CreateWebhookBody, id: string): Promise<Record<string, unknown>> {
    const url = await assertWebhookDestination(body.url, 'url', merchantId, this.deps.destinations);
    const secret = newWebhookSecret();
    const endpoint = await webhookEndpointStore.createEndpointOnce({
      id,
      merchantId,
      chargeId: null,
      url,
      events: body.events,
      description: body.description ?? null,
      secretCiphertext: encryptSecret(secret, this.deps.encryptionKey),
      previousSecretCiphertext: null,
      previousSecretExpiresAt: null,
      disabledAt: null,
      disabledReason: null,
    });
    return presentWebhookEndpoint(endpoint, decryptSecret(endpoint.secretCiphertext, this.deps.encryptionKey));
  }

  async list(merchantId: string, page: { limit: number; offset: number }) {
    const { rows, count } = await webhookEndpointStore.listEndpoints(merchantId, page);
    return {
      webhooks: rows.map((w) => presentWebhookEndpoint(w)),
      pagination: { total: count, limit: page.limit, offset: page.offset, hasMore: page.offset + rows.length < count },
    };
  }

  async get(merchantId: string, id: string) {
    return presentWebhookEndpoint(await this.find(merchantId, id));
  }

  async update(merchantId: string, id: string, patch: UpdateWebhookBody) {
    const endpoint = await this.find(merchantId, id);
    const url =
      patch.url !== undefined
        ? await assertWebhookDestination(patch.url, 'url', merchantId, this.deps.destinations)
        : undefined;
    const disabled = {
      active: endpoint.active,
      disabledAt: endpoint.disabledAt,
      disabledReason: endpoint.disabledReason,
    };
    await webhookEndpointStore.updateEndpoint(endpoint, {
      ...(url !== undefined ? { url } : {}),
      ...(patch.events !== undefined ? { events: patch.events } : {}),
      ...(patch.description !== undefined ? { description: patch.description } : {}),
      ...(patch.active !== undefined
        ? {
            active: patch.active,
            disabledAt: patch.active ? null : new Date(),
            disabledReason: patch.active ? null : 'disabled by merchant',
          }
        : {}),
    });
    if (patch.active === true && !disabled.active) await this.replayMissed(endpoint, disabled);
    return presentWebhookEndpoint(endpoint);
  }

  /**
   * Starts the replay of what the endpoint missed since `disabled.disabledAt`, after the
   * re-enable is stored (the replay only serves an active endpoint). If it cannot be started
   * the endpoint goes back to disabled and the answer is 503: a retried PATCH does both again,
   * and an endpoint is never active without its missed events on their way.
   */
  private async replayMissed(
    endpoint: WebhookEndpoint,
    disabled: { active: boolean; disabledAt: Date | null; disabledReason: string | null },
  ): Promise<void> {
    const since = disabled.disabledAt ?? endpoint.updatedAt;
    try {
      await startWorkflow(this.deps.temporal, webhookReplayWorkflow, {
        workflowId: replayWorkflowId(endpoint.id, since),
        taskQueue: this.deps.taskQueue,
        args: [{ webhookId: endpoint.id, merchantId: endpoint.merchantId, since: since.toISOString() }],
      });
    } catch (err) {
      // Already started: an earlier PATCH of this same re-enable got that far.
      if ((err as Error).name === 'WorkflowExecutionAlreadyStartedError') return;
      await webhookEndpointStore.updateEndpoint(endpoint, disabled).catch(() => undefined);
      throw errors.unavailable(
        'the webhook could not be re-enabled now (its missed events could not be queued); retry later',
      );
    }
  }

  /**
   * Rotation `rotationId` (the idempotency claim's resource id). A request that took the claim
   * over after its holder rotated answers that rotation, with the secret it made (the holder's
   * answer never reached the caller), instead of rotating again: a second rotation would end the
   * oldest secret's overlap at once, while receivers may still verify with it.
   */
  async rotateSecret(merchantId: string, id: string, rotationId: string) {
    const endpoint = await this.find(merchantId, id);
    if (endpoint.rotationId === rotationId)
      return {
        ...presentWebhookEndpoint(endpoint, decryptSecret(endpoint.secretCiphertext, this.deps.encryptionKey)),
        previousSecretExpiresAt: endpoint.previousSecretExpiresAt?.toISOString() ?? null,
      };
    const secret = newWebhookSecret();
    await webhookEndpointStore.updateEndpoint(endpoint, {
      previousSecretCiphertext: endpoint.secretCiphertext,
      previousSecretExpiresAt: new Date(Date.now() + ROTATION_OVERLAP_HOURS * 3_600_000),
      secretCiphertext: encryptSecret(secret, this.deps.encryptionKey),
      rotationId,
    });
    return {
      ...presentWebhookEndpoint(endpoint, secret),
      previousSecretExpiresAt: endpoint.previousSecretExpiresAt!.toISOString(),
    };
  }

  /** DELETE disables (history and in-flight deliveries stay consistent); it never erases. */
  async disable(merchantId: string, id: string) {
    const endpoint = await this.find(merchantId, id);
    if (endpoint.active)
      await webhookEndpointStore.updateEndpoint(endpoint, {
        active: false,
        disabledAt: new Date(),
        disabledReason: 'deleted by merchant',
      });
    return presentWebhookEndpoint(endpoint);
  }

  private async find(merchantId: string, id: string): Promise<WebhookEndpoint> {
    const endpoint = await webhookEndpointStore.findEndpoint(merchantId, id);
    if (!endpoint) throw errors.notFound('webhook');
    return endpoint;
  }
}
