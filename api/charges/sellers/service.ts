/**
 * Seller Pix charges: fees, splits and the charge webhook, then the one issue path
 * (api/charges/issueCharge.ts).
 */
import crypto from 'node:crypto';
import type { Sequelize } from 'sequelize';
import type { Client } from '@temporalio/client';
import type { ChargeLifecycleInput } from '../../../workflows/charges/types';
import { chargeFee } from '../../../core/charges/issueRules';
import { chargeExpiryOrInvalid, issueCharge } from '../issueCharge';
import { allocateSplits } from '../../../core/splits';
import { chargeStore, presentChargeRow } from '../../../db/charges';
import { merchantStore, type Merchant } from '../../../db/identity';
import { webhookEndpointStore } from '../../../db/events';
import { decryptSecret, encryptSecret } from '../../../core/crypto/secretBox';
import { chargeEventTypes } from '../../../core/events/events';
import { assertWebhookDestination, type DestinationPolicy } from '../../events/destinationPolicy';
import { newWebhookSecret } from '../../../core/events/secret';
import { errors } from '../../errors/apiError';
import type { CreateSellerPixBody } from './schema';

export interface SellerPixServiceDeps {
  sequelize: Sequelize;
  temporal: Client;
  taskQueue: string;
  defaultFee: { bps: number; fixedCents: number };
  defaultChargeTtlSeconds: number;
  encryptionKey: Buffer;
  destinations: DestinationPolicy;
  /** config.platformInstitutionName: where the merchant's account is held, as the charge shows it. */
  platformInstitution: string;
  now?: () => Date;
}

export class SellerPixService {
  constructor(private readonly deps: SellerPixServiceDeps) {}

  /**
   * Issues the charge `chargeId` (the idempotency claim's resource id). Runs inside the claim:
   * its checks depend on time, the database and DNS, so a same-key retry replays instead.
   */
  async create(
    merchant: Merchant,
    body: CreateSellerPixBody,
    chargeId: string,
    resuming: boolean,
    idempotencyKey: string | null,
  ): Promise<Record<string, unknown>> {
    if (resuming) {
      // A previous holder of this key died: its charge may already exist.
      const existing = await chargeStore.findCharge(chargeId);
      if (existing) return this.withWebhookSecret(await presentChargeRow(existing, this.deps.platformInstitution));
    }
    // The charge webhook's secret, drawn here: the 201 shows it as it was made, never read back.
    const webhookSecret = body.webhook_url ? newWebhookSecret() : null;
    const input = await this.buildInput(merchant, body, chargeId, idempotencyKey, webhookSecret);
    return this.issue(input, merchant, webhookSecret);
  }

  /**
   * The 201 is the one answer that shows the charge webhook's secret; replays and reads show null.
   * The secret this request made is shown as it is; a resumed claim's, or a joined run's (the
   * request that started it made its webhook), is read back from the endpoint and decrypted.
   */
  private async withWebhookSecret(
    view: Record<string, unknown>,
    made: { id: string; secret: string } | null = null,
  ): Promise<Record<string, unknown>> {
    const webhook = view.webhook as { id: string } | null;
    if (!webhook) return view;
    if (made?.id === webhook.id) return { ...view, webhook: { ...webhook, secret: made.secret } };
    const endpoint = await webhookEndpointStore.findEndpointById(webhook.id);
    if (!endpoint) return view;
    return {
      ...view,
      webhook: { ...webhook, secret: decryptSecret(endpoint.secretCiphertext, this.deps.encryptionKey) },
    };
  }

  async findForMerchant(merchantId: string, lookup: string): Promise<Record<string, unknown>> {
    const charge = await chargeStore.findMerchantCharge(merchantId, lookup);
    if (!charge) throw errors.notFound('Pix charge');
    return presentChargeRow(charge, this.deps.platformInstitution);
  }

  private async buildInput(
    merchant: Merchant,
    body: CreateSellerPixBody,
    chargeId: string,
    idempotencyKey: string | null,
    webhookSecret: string | null,
  ): Promise<ChargeLifecycleInput> {
    const expiresAt = chargeExpiryOrInvalid(
      body.expiresAt,
      this.deps.now?.() ?? new Date(),
      this.deps.defaultChargeTtlSeconds,
    );
    const feeCents = chargeFee(merchant, this.deps.defaultFee, body.amountCents);
    const splits = await this.validateSplits(merchant, body, feeCents);
    const webhook =
      body.webhook_url && webhookSecret ? await this.chargeWebhook(merchant.id, body.webhook_url, webhookSecret) : null;
    return {
      chargeId,
      merchantId: merchant.id,
      amountCents: body.amountCents,
      feeCents,
      description: body.description ?? null,
      externalRef: body.externalRef ?? null,
      metadata: body.metadata ?? null,
      splits,
      expiresAt: expiresAt.toISOString(),
      idempotencyKey,
      webhook,
    };
  }

  private async chargeWebhook(
    merchantId: string,
    rawUrl: string,
    secret: string,
  ): Promise<ChargeLifecycleInput['webhook']> {
    const url = await assertWebhookDestination(rawUrl, 'webhook_url', merchantId, this.deps.destinations);
    return {
      id: crypto.randomUUID(),
      url,
      events: [...chargeEventTypes],
      secretCiphertext: encryptSecret(secret, this.deps.encryptionKey),
    };
  }

  private async validateSplits(merchant: Merchant, body: CreateSellerPixBody, feeCents: number) {
    const requested = body.splits ?? [];
    if (requested.length === 0) return [];
    const fields: { field: string; message: string }[] = [];
    const seen = new Set<string>();
    requested.forEach((s, i) => {
      if (s.merchantId === merchant.id)
        fields.push({ field: `splits.${i}.merchantId`, message: 'a split cannot go to the charge owner' });
      if (seen.has(s.merchantId))
        fields.push({ field: `splits.${i}.merchantId`, message: 'merchant appears in more than one split' });
      seen.add(s.merchantId);
    });
    const known = await merchantStore.activeMerchantIds([...seen]);
    requested.forEach((s, i) => {
      if (!known.has(s.merchantId))
        fields.push({ field: `splits.${i}.merchantId`, message: 'no active merchant with this id' });
    });
    const allocation = allocateSplits(body.amountCents, feeCents, requested);
    if (!allocation.ok) {
      for (const p of allocation.problems)
        fields.push({ field: p.index >= 0 ? `splits.${p.index}.${p.field}` : p.field, message: p.message });
    }
    if (fields.length > 0 || !allocation.ok) throw errors.validation('request body is invalid', { fields });
    return allocation.allocations;
  }

  private async issue(
    input: ChargeLifecycleInput,
    merchant: Merchant,
    webhookSecret: string | null,
  ): Promise<Record<string, unknown>> {
    const charge = await issueCharge(this.deps, input);
    // Not read again: the owner, read for this request, and what the charge cannot have. A run
    // joined instead of started (same idempotency claim) was started with the same body, so no
    // splits and no webhook_url there either; a webhook or splits, when asked for, are read (a
    // joined run's webhook has the id its own request made).
    return this.withWebhookSecret(
      await presentChargeRow(charge, this.deps.platformInstitution, undefined, {
        merchant,
        ...(input.splits.length === 0 ? { splits: [] } : {}),
        ...(input.webhook === null ? { webhook: null } : {}),
      }),
      input.webhook && webhookSecret ? { id: input.webhook.id, secret: webhookSecret } : null,
    );
  }
}

/** What a replay shows: the charge webhook's secret only ever appears in the first 201. */
export function redactWebhookSecret(body: unknown): unknown {
  const view = body as Record<string, unknown>;
  return view.webhook ? { ...view, webhook: { ...(view.webhook as object), secret: null } } : view;
}
