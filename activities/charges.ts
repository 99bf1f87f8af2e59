/**
 * Charge activities: every provider call and DB write of a charge's life. Each is idempotent:
 * provider calls carry the charge id as idempotency key, DB writes are keyed (charge id,
 * ledger movement key, outbox dedup key), so a retried activity changes nothing twice.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Sequelize } from 'sequelize';
import { ProviderError, type PixProvider, type ProviderCharge } from '../core/provider';
import { chargePaidEntry } from '../core/ledger/postings';
import { Charge, ChargeSplit, WebhookEndpoint } from '../db/models';
import { presentChargeRow } from '../db/queries/sellerChargeView';
import { ChargeFailureTypes, type ChargeLifecycleInput, type IssuedCharge, type PaymentConfirmation } from '../workflows/charge/types';
import { writeLedgerEntry } from './db/ledgerWriter';
import { recordEvent } from './db/outbox';
import crypto from 'node:crypto';
import { qrCodePngBase64 } from '../core/pix/qrPng';

export interface ChargeActivityDeps {
  sequelize: Sequelize;
  provider: PixProvider;
  /** Our callback URL the provider will POST payment confirmations to. */
  providerCallbackUrl: string;
}

export function createChargeActivities(deps: ChargeActivityDeps) {
  const { sequelize, provider } = deps;

  /**
   * Returns the provider's charge without its QR image: the PNG is rendered again from the BR
   * Code when the charge is recorded, so kilobytes of base64 never enter workflow history.
   */
  async function issuePixAtProvider(input: ChargeLifecycleInput): Promise<IssuedProviderCharge> {
    try {
      const charge = await provider.issueCharge({
        reference: input.chargeId,
        amountCents: input.amountCents,
        description: input.description,
        expiresAt: input.expiresAt,
        callbackUrl: deps.providerCallbackUrl,
      });
      if (!charge.copyPaste || !charge.txid) {
        throw ApplicationFailure.nonRetryable('the provider answered without a Pix payload', ChargeFailureTypes.pixNotIssued);
      }
      const { qrCodeBase64: _image, ...withoutImage } = charge;
      return withoutImage;
    } catch (err) {
      throw toActivityFailure(err);
    }
  }

  async function recordIssuedCharge(args: { input: ChargeLifecycleInput; providerCharge: IssuedProviderCharge }): Promise<IssuedCharge> {
    const { input, providerCharge } = args;
    const pix = { qrCode: await qrCodePngBase64(providerCharge.copyPaste), copyPaste: providerCharge.copyPaste, expiresAt: input.expiresAt };
    await sequelize.transaction(async (transaction) => {
      const [charge, created] = await Charge.findOrCreate({
        where: { id: input.chargeId },
        defaults: {
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
          providerChargeId: providerCharge.id,
          pixTxid: providerCharge.txid,
          endToEndId: null,
          idempotencyKey: input.idempotencyKey,
          expiresAt: new Date(input.expiresAt),
          paidAt: null,
          expiredAt: null,
          cancelledAt: null,
        },
        transaction,
      });
      if (!created) return; // a retry after a commit whose answer was lost
      if (input.webhook) {
        await WebhookEndpoint.create(
          {
            id: input.webhook.id,
            merchantId: input.merchantId,
            chargeId: input.chargeId,
            url: input.webhook.url,
            events: input.webhook.events,
            description: 'charge webhook (webhook_url)',
            secretCiphertext: input.webhook.secretCiphertext,
            previousSecretCiphertext: null,
            previousSecretExpiresAt: null,
            disabledAt: null,
            disabledReason: null,
          },
          { transaction },
        );
      }
      await ChargeSplit.bulkCreate(
        input.splits.map((s, position) => ({
          id: crypto.randomUUID(),
          chargeId: input.chargeId,
          merchantId: s.merchantId,
          amountCents: s.amountCents,
          percentage: s.percentage,
          position,
        })),
        { transaction },
      );
      await recordEvent(
        { type: 'charge.created', merchantId: input.merchantId, aggregateType: 'charge', aggregateId: input.chargeId, payload: await presentChargeRow(charge, transaction) },
        transaction,
      );
    });
    return {
      chargeId: input.chargeId,
      providerChargeId: providerCharge.id,
      pixTxid: providerCharge.txid,
      copyPaste: pix.copyPaste,
      expiresAt: input.expiresAt,
    };
  }

  /** Closes the charge at the provider; reports a payment if one beat the close. */
  async function closeProviderCharge(args: { providerChargeId: string; reason: 'EXPIRED' | 'CANCELLED' }): Promise<{ status: string; payment: PaymentConfirmation | null }> {
    try {
      const closed = await provider.closeCharge(args.providerChargeId, args.reason);
      return { status: closed.status, payment: closed.status === 'PAID' ? paymentFrom(closed) : null };
    } catch (err) {
      throw toActivityFailure(err);
    }
  }

  async function closeOrphanProviderCharge(args: { reference: string }): Promise<void> {
    try {
      const found = await provider.findChargeByReference(args.reference);
      if (found && found.status === 'ACTIVE') await provider.closeCharge(found.id, 'CANCELLED');
    } catch (err) {
      throw toActivityFailure(err);
    }
  }

  async function settleChargePaid(args: { chargeId: string; payment: PaymentConfirmation }): Promise<{ applied: boolean }> {
    return sequelize.transaction(async (transaction) => {
      const charge = await Charge.findByPk(args.chargeId, { transaction, lock: transaction.LOCK.UPDATE });
      if (!charge) throw ApplicationFailure.nonRetryable(`charge ${args.chargeId} not found`, 'ChargeNotFound');
      if (charge.status === 'PAID') return { applied: false };
      if (args.payment.amountCents !== charge.amountCents) {
        // A Pix cob is paid in full or not at all; a different amount means a provider bug. Stop and alert.
        throw ApplicationFailure.nonRetryable(
          `paid amount ${args.payment.amountCents} differs from charge amount ${charge.amountCents}`,
          'PaymentAmountMismatch',
        );
      }
      const late = charge.status !== 'PENDING';
      const splits = await ChargeSplit.findAll({ where: { chargeId: charge.id }, transaction });
      await writeLedgerEntry(
        sequelize,
        chargePaidEntry({
          chargeId: charge.id,
          merchantId: charge.merchantId,
          amountCents: charge.amountCents,
          feeCents: charge.feeCents,
          splits: splits.map((s) => ({ merchantId: s.merchantId, amountCents: s.amountCents })),
        }),
        transaction,
      );
      await charge.update(
        {
          status: 'PAID',
          paidAt: new Date(args.payment.paidAt),
          endToEndId: args.payment.endToEndId,
          payerSnapshot: args.payment.payer ? { ...args.payment.payer } : null,
          paidAfterExpiry: late,
        },
        { transaction },
      );
      await recordEvent(
        { type: 'charge.paid', merchantId: charge.merchantId, aggregateType: 'charge', aggregateId: charge.id, payload: await presentChargeRow(charge, transaction) },
        transaction,
      );
      return { applied: true };
    });
  }

  async function finalizeUnpaidCharge(args: { chargeId: string; status: 'EXPIRED' | 'CANCELLED'; reason: string | null }): Promise<void> {
    await sequelize.transaction(async (transaction) => {
      const charge = await Charge.findByPk(args.chargeId, { transaction, lock: transaction.LOCK.UPDATE });
      if (!charge || charge.status !== 'PENDING') return;
      const now = new Date();
      await charge.update(args.status === 'EXPIRED' ? { status: 'EXPIRED', expiredAt: now } : { status: 'CANCELLED', cancelledAt: now }, { transaction });
      const type = args.status === 'EXPIRED' ? 'charge.expired' : 'charge.cancelled';
      await recordEvent(
        { type, merchantId: charge.merchantId, aggregateType: 'charge', aggregateId: charge.id, payload: await presentChargeRow(charge, transaction) },
        transaction,
      );
    });
  }

  return { issuePixAtProvider, recordIssuedCharge, closeProviderCharge, closeOrphanProviderCharge, settleChargePaid, finalizeUnpaidCharge };
}

export type IssuedProviderCharge = Omit<ProviderCharge, 'qrCodeBase64'>;

export type ChargeActivities = ReturnType<typeof createChargeActivities>;

export function paymentFrom(charge: ProviderCharge): PaymentConfirmation {
  return {
    providerChargeId: charge.id,
    endToEndId: charge.endToEndId as string,
    amountCents: charge.amountCents,
    paidAt: charge.paidAt as string,
    payer: charge.payer,
  };
}

/** Transient provider errors are retried by Temporal; permanent ones end the attempt chain. */
function toActivityFailure(err: unknown): unknown {
  if (err instanceof ProviderError) {
    if (err.transient) return ApplicationFailure.retryable(err.message, ChargeFailureTypes.providerUnavailable);
    return ApplicationFailure.nonRetryable(err.message, ChargeFailureTypes.providerRejected);
  }
  return err;
}
