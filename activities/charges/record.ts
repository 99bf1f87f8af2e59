import { ApplicationFailure } from '@temporalio/activity';
import type { Transaction } from 'sequelize';
import { chargeStore, presentChargeRow, type StoredPix } from '../../db/charges';
import { webhookEndpointStore } from '../../db/events';
import type { Merchant } from '../../db/identity';
import { ChargeFailureTypes, type ChargeLifecycleInput } from '../../workflows/charges/types';
import type { BoletoColumns } from '../boletos/issueBoleto';
import { recordEvent } from '../events/outbox';
import type { ChargeDeps } from './deps';

/** What the provider issued, as the charge row stores it. */
export interface IssuedAs {
  pix: StoredPix;
  providerChargeId: string;
  pixTxid: string;
  /** The merchant's own connection the charge was issued on; null or absent: the platform's account. */
  pspConnectionId?: string | null;
  boleto?: BoletoColumns;
}

/**
 * Stores the issued charge (Pix or boleto) once, with its webhook, splits and charge.created,
 * under the issue lock and only if the workflow has not given up on it (tombstone).
 */
export async function recordCharge(
  deps: Pick<ChargeDeps, 'sequelize' | 'checkouts' | 'platformInstitution'>,
  input: ChargeLifecycleInput,
  issuedAs: IssuedAs,
  merchant?: Merchant,
): Promise<void> {
  const { sequelize } = deps;
  const { pix } = issuedAs;
  await sequelize.transaction(async (transaction) => {
    await chargeStore.lockIssue(sequelize, input.chargeId, transaction);
    // An attempt that outlived the workflow's patience must not create the charge it gave up on.
    if (await chargeStore.isTombstoned(sequelize, input.chargeId, transaction)) {
      throw ApplicationFailure.nonRetryable(
        `charge ${input.chargeId} was abandoned while issuing`,
        ChargeFailureTypes.issueAbandoned,
      );
    }
    const { charge, created } = await chargeStore.createChargeOnce(
      {
        id: input.chargeId,
        merchantId: input.merchantId,
        amountCents: input.amountCents,
        feeCents: input.feeCents,
        status: 'PENDING',
        description: input.description,
        externalRef: input.externalRef,
        metadata: input.metadata,
        pix,
        payerSnapshot: null,
        payerDetails: input.payer ?? null,
        providerChargeId: issuedAs.providerChargeId,
        pixTxid: issuedAs.pixTxid,
        pspConnectionId: issuedAs.pspConnectionId ?? null,
        endToEndId: null,
        idempotencyKey: input.idempotencyKey,
        expiresAt: new Date(input.expiresAt),
        paidAt: null,
        expiredAt: null,
        cancelledAt: null,
        ...(issuedAs.boleto ? { method: 'BOLETO', ...issuedAs.boleto } : {}),
      },
      transaction,
    );
    if (!created) return; // a retry after a commit whose answer was lost
    await deps.checkouts.insert(input, transaction);
    if (input.webhook) await createChargeWebhook(input, input.webhook, transaction);
    const splits = await chargeStore.addSplits(input.chargeId, input.splits, transaction);
    // The splits and the webhook were written just above: presented from what was written, not read back.
    const webhook = input.webhook
      ? { id: input.webhook.id, url: input.webhook.url, events: input.webhook.events }
      : null;
    await recordEvent(
      {
        type: 'charge.created',
        merchantId: input.merchantId,
        aggregateType: 'charge',
        aggregateId: input.chargeId,
        payload: await presentChargeRow(charge, deps.platformInstitution, transaction, { splits, webhook, merchant }),
      },
      transaction,
    );
  });
}

/** The charge's own webhook (the request's webhook_url). */
async function createChargeWebhook(
  input: ChargeLifecycleInput,
  webhook: NonNullable<ChargeLifecycleInput['webhook']>,
  transaction: Transaction,
): Promise<void> {
  await webhookEndpointStore.createChargeWebhook(
    {
      id: webhook.id,
      merchantId: input.merchantId,
      chargeId: input.chargeId,
      url: webhook.url,
      events: webhook.events,
      description: 'charge webhook (webhook_url)',
      secretCiphertext: webhook.secretCiphertext,
      previousSecretCiphertext: null,
      previousSecretExpiresAt: null,
      disabledAt: null,
      disabledReason: null,
    },
    transaction,
  );
}
