/**
 * Charge activities: every provider call and DB write of a charge's life. Each is idempotent:
 * provider calls carry the charge id as idempotency key, DB writes are keyed (charge id,
 * ledger movement key, outbox dedup key), so a retried activity changes nothing twice.
 *
 * Money comes in only on the provider's word: a confirmation (signal or callback) is a hint to
 * look, and settlement credits what the provider's own record of the charge says.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Sequelize } from 'sequelize';
import { ProviderError, type BoletoProvider, type PixProvider, type ProviderCharge } from '../../core/provider';
import { chargePaidEntry } from '../../core/ledger/postings';
import { qrCodePngBase64 } from '../../core/pix/qrPng';
import {
  chargeStore,
  paymentAlertStore,
  presentChargeRow,
  type Charge,
  type PaymentAlertKind,
  type StoredPix,
} from '../../db/charges';
import { webhookEndpointStore } from '../../db/events';
import { merchantStore, type Merchant } from '../../db/identity';
import { DEFAULT_PLATFORM_INSTITUTION_NAME } from '../../config';
import {
  ChargeFailureTypes,
  type ChargeLifecycleInput,
  type CloseOutcome,
  type IssuedCharge,
  type SettleOutcome,
} from '../../workflows/charges/types';
import type { PaymentConfirmation } from '../../core/charges/paymentConfirmation';
import { createBoletoChargeActivities, type BoletoColumns } from '../boletos/boletoCharges';
import { writeLedgerEntry } from '../ledger/ledgerWriter';
import { recordEvent } from '../events/outbox';
import { CheckoutEffects, checkoutBaseUrl } from '../checkouts/checkoutEffects';

export interface ChargeActivityDeps {
  sequelize: Sequelize;
  provider: PixProvider;
  /** Boletos; by default `provider` when its client issues them too (HttpPixProvider does). */
  boletoProvider?: BoletoProvider;
  /** Our callback URL the provider will POST payment confirmations to. */
  providerCallbackUrl: string;
  /** PUBLIC_BASE_URL (checkout page URLs in checkout.* events); default: the callback URL's base. */
  publicBaseUrl?: string;
  /** PLATFORM_INSTITUTION_NAME (config.platformInstitutionName), as charge and withdrawal events show it; default config.ts's. */
  platformInstitution?: string;
}

export type { PaymentAlertKind };

export function createChargeActivities(deps: ChargeActivityDeps) {
  const { sequelize, provider } = deps;
  const platformInstitution = deps.platformInstitution ?? DEFAULT_PLATFORM_INSTITUTION_NAME;
  const checkouts = new CheckoutEffects(sequelize, checkoutBaseUrl(deps));
  const boletoActivities = createBoletoChargeActivities({
    sequelize,
    platformInstitution,
    boletos: deps.boletoProvider ?? (isBoletoProvider(provider) ? provider : undefined),
    providerCallbackUrl: deps.providerCallbackUrl,
    recordCharge: (input, issuedAs) => recordCharge(input, issuedAs),
    recordAlert: (...a) => recordAlert(...a),
    log: activityLog,
  });

  /**
   * Returns the provider's charge without its QR image: the PNG is rendered again from the BR
   * Code when the charge is recorded, so kilobytes of base64 never enter workflow history.
   */
  async function issuePixAtProvider(input: ChargeLifecycleInput): Promise<IssuedProviderCharge> {
    // The payer's bank app shows field 59 of the BR Code: the merchant's name, not the gateway's.
    return issueAtProvider(input, await merchantStore.merchantName(input.merchantId));
  }

  async function issueAtProvider(
    input: ChargeLifecycleInput,
    merchantName: string | null,
  ): Promise<IssuedProviderCharge> {
    try {
      const charge = await provider.issueCharge({
        reference: input.chargeId,
        amountCents: input.amountCents,
        description: input.description,
        expiresAt: input.expiresAt,
        callbackUrl: deps.providerCallbackUrl,
        merchantName,
      });
      if (!charge.copyPaste || !charge.txid) {
        throw ApplicationFailure.nonRetryable(
          'the provider answered without a Pix payload',
          ChargeFailureTypes.pixNotIssued,
        );
      }
      const { qrCodeBase64: _image, ...withoutImage } = charge;
      return withoutImage;
    } catch (err) {
      throw toActivityFailure(err);
    }
  }

  async function recordIssuedCharge(args: {
    input: ChargeLifecycleInput;
    providerCharge: IssuedProviderCharge;
  }): Promise<IssuedCharge> {
    return recordIssued(args.input, args.providerCharge);
  }

  async function recordIssued(
    input: ChargeLifecycleInput,
    providerCharge: IssuedProviderCharge,
    merchant?: Merchant,
  ): Promise<IssuedCharge> {
    const pix = {
      qrCode: await qrCodePngBase64(providerCharge.copyPaste),
      copyPaste: providerCharge.copyPaste,
      expiresAt: input.expiresAt,
    };
    await recordCharge(input, { pix, providerChargeId: providerCharge.id, pixTxid: providerCharge.txid }, merchant);
    return issuedFrom(input.chargeId, providerCharge.id, providerCharge.txid, pix.copyPaste, input.expiresAt);
  }

  /**
   * issuePixAtProvider then recordIssuedCharge in one step (one local activity, one workflow
   * activation fewer per create). Both halves are idempotent, so an attempt that failed in the
   * record half asks the provider again and gets the same charge. The merchant is read once: its
   * name goes into the BR Code, the row into charge.created.
   */
  async function issueAndRecordPix(input: ChargeLifecycleInput): Promise<IssuedCharge> {
    const merchant = await merchantStore.findMerchant(input.merchantId);
    const providerCharge = await issueAtProvider(input, merchant?.name ?? null);
    return recordIssued(input, providerCharge, merchant ?? undefined);
  }

  /**
   * Stores the issued charge (Pix or boleto) once, with its webhook, splits and charge.created,
   * under the issue lock and only if the workflow has not given up on it (tombstone).
   */
  async function recordCharge(
    input: ChargeLifecycleInput,
    issuedAs: { pix: StoredPix; providerChargeId: string; pixTxid: string; boleto?: BoletoColumns },
    merchant?: Merchant,
  ): Promise<void> {
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
      await checkouts.insert(input, transaction);
      if (input.webhook) {
        await webhookEndpointStore.createChargeWebhook(
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
          transaction,
        );
      }
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
          payload: await presentChargeRow(charge, platformInstitution, transaction, { splits, webhook, merchant }),
        },
        transaction,
      );
    });
  }

  /**
   * The workflow gave up issuing. Under the same lock the record step takes: if a record attempt
   * did commit, answer with that charge (it exists, so the client must hear so); otherwise leave
   * a tombstone, so an attempt still running somewhere can never commit it later.
   */
  async function abandonChargeIssue(args: {
    chargeId: string;
    merchantId: string;
    expiresAt: string;
    reason: string;
  }): Promise<IssuedCharge | null> {
    return sequelize.transaction(async (transaction) => {
      await chargeStore.lockIssue(sequelize, args.chargeId, transaction);
      const charge = await chargeStore.findCharge(args.chargeId, transaction);
      if (charge) {
        const copyPaste = (charge.pix as { copyPaste: string } | null)?.copyPaste ?? '';
        return issuedFrom(
          charge.id,
          charge.providerChargeId as string,
          charge.pixTxid as string,
          copyPaste,
          args.expiresAt,
        );
      }
      await chargeStore.addTombstone(sequelize, args, transaction);
      return null;
    });
  }

  /**
   * Closes the charge at the provider; reports a payment if one beat the close. A provider that
   * has no record of the charge (lost state, wrong environment) is asked what it knows; with no
   * record at all the answer is NO_RECORD, so the workflow expires the charge instead of failing.
   */
  async function closeProviderCharge(args: {
    providerChargeId: string;
    reason: 'EXPIRED' | 'CANCELLED';
    chargeId?: string;
  }): Promise<CloseOutcome> {
    try {
      const closed = await provider.closeCharge(args.providerChargeId, args.reason);
      return { status: closed.status, payment: closed.status === 'PAID' ? paymentFrom(closed) : null };
    } catch (err) {
      if (!isNoRecord(err)) throw toRetryable(err);
    }
    try {
      const found =
        (await getChargeOrNull(args.providerChargeId)) ??
        (args.chargeId ? await provider.findChargeByReference(args.chargeId) : null);
      if (found) {
        const closed = found.status === 'ACTIVE' ? await provider.closeCharge(found.id, args.reason) : found;
        return { status: closed.status, payment: closed.status === 'PAID' ? paymentFrom(closed) : null };
      }
    } catch (err) {
      throw toRetryable(err);
    }
    activityLog('warn', 'the provider has no record of the charge; closing it on our side', {
      chargeId: args.chargeId,
      providerChargeId: args.providerChargeId,
    });
    if (args.chargeId)
      await recordAlert(args.chargeId, 'NO_PROVIDER_RECORD', null, null, { providerChargeId: args.providerChargeId });
    return { status: 'NO_RECORD', payment: null };
  }

  async function closeOrphanProviderCharge(args: { reference: string }): Promise<void> {
    try {
      const found = await provider.findChargeByReference(args.reference);
      if (found && found.status === 'ACTIVE') await provider.closeCharge(found.id, 'CANCELLED');
    } catch (err) {
      throw toRetryable(err);
    }
  }

  /**
   * Credits a payment once the provider confirms it: its record of our charge must be PAID, carry
   * our reference and the charge's amount. endToEndId, paidAt and payer come from that record,
   * never from the claim (`payment`), which only says "go and look". A claim the provider does
   * not back up, or a paid record that differs from the charge, credits nothing: it is stored in
   * payment_alerts and logged, and the charge is left as it was. Provider errors are retried.
   */
  async function settleChargePaid(args: {
    chargeId: string;
    payment: PaymentConfirmation;
  }): Promise<{ outcome: SettleOutcome }> {
    const charge = await chargeStore.findCharge(args.chargeId);
    if (!charge) throw ApplicationFailure.nonRetryable(`charge ${args.chargeId} not found`, 'ChargeNotFound');
    if (charge.method === 'BOLETO') return { outcome: await boletoActivities.settleBoleto(charge, args.payment) };
    if (charge.status === 'PAID') return { outcome: await alreadyPaid(charge, args.payment.endToEndId) };

    let paid: ProviderCharge | null;
    try {
      paid = await getChargeOrNull(charge.providerChargeId as string);
    } catch (err) {
      throw toRetryable(err);
    }
    const problem = paymentProblem(charge, paid);
    if (problem) {
      activityLog('error', `payment not credited: ${problem.message}`, { chargeId: charge.id, kind: problem.kind });
      const endToEndId = problem.kind === 'NOT_CONFIRMED' ? args.payment.endToEndId : (paid?.endToEndId ?? null);
      await recordAlert(charge.id, problem.kind, endToEndId, paid?.amountCents ?? args.payment.amountCents, {
        message: problem.message,
        providerStatus: paid?.status ?? null,
        claimedAmountCents: args.payment.amountCents,
      });
      return { outcome: problem.kind === 'NOT_CONFIRMED' ? 'NOT_CONFIRMED' : 'MISMATCH' };
    }
    const confirmed = paid as ProviderCharge;

    return sequelize.transaction(async (transaction) => {
      const locked = await chargeStore.lockCharge(args.chargeId, transaction);
      if (!locked) throw ApplicationFailure.nonRetryable(`charge ${args.chargeId} not found`, 'ChargeNotFound');
      if (locked.status === 'PAID') return { outcome: 'ALREADY_PAID' as const };
      const late = locked.status !== 'PENDING';
      const splits = await chargeStore.splitsOf(locked.id, transaction);
      await writeLedgerEntry(
        sequelize,
        chargePaidEntry({
          chargeId: locked.id,
          merchantId: locked.merchantId,
          amountCents: locked.amountCents,
          feeCents: locked.feeCents,
          splits: splits.map((s) => ({ merchantId: s.merchantId, amountCents: s.amountCents })),
        }),
        transaction,
      );
      await chargeStore.updateCharge(
        locked,
        {
          status: 'PAID',
          paidAt: new Date(confirmed.paidAt as string),
          endToEndId: confirmed.endToEndId,
          payerSnapshot: confirmed.payer ? { ...confirmed.payer } : null,
          paidAfterExpiry: late,
        },
        transaction,
      );
      await recordEvent(
        {
          type: 'charge.paid',
          merchantId: locked.merchantId,
          aggregateType: 'charge',
          aggregateId: locked.id,
          // The splits were read above, in this transaction: presented from there, not read again.
          payload: await presentChargeRow(locked, platformInstitution, transaction, { splits }),
        },
        transaction,
      );
      // Money that arrived is never dropped: a late payment moves an EXPIRED/CANCELLED checkout to PAID too.
      await checkouts.paid(
        {
          chargeId: locked.id,
          amountCents: locked.amountCents,
          paidAt: new Date(confirmed.paidAt as string),
          studentName: confirmed.payer?.name ?? null,
          studentDocument: confirmed.payer?.document ?? null,
        },
        transaction,
      );
      return { outcome: 'SETTLED' as const };
    });
  }

  /** A claim for a charge already PAID: the same payment is a duplicate; another one is an alert. */
  async function alreadyPaid(charge: Charge, claimedEndToEndId: string): Promise<SettleOutcome> {
    if (claimedEndToEndId && claimedEndToEndId !== charge.endToEndId) {
      await recordAlert(charge.id, 'DUPLICATE_PAYMENT', claimedEndToEndId, null, { paidEndToEndId: charge.endToEndId });
    }
    return 'ALREADY_PAID';
  }

  async function finalizeUnpaidCharge(args: {
    chargeId: string;
    status: 'EXPIRED' | 'CANCELLED';
    reason: string | null;
  }): Promise<void> {
    await sequelize.transaction(async (transaction) => {
      const charge = await chargeStore.lockCharge(args.chargeId, transaction);
      if (!charge || charge.status !== 'PENDING') return;
      const now = new Date();
      await chargeStore.updateCharge(
        charge,
        args.status === 'EXPIRED' ? { status: 'EXPIRED', expiredAt: now } : { status: 'CANCELLED', cancelledAt: now },
        transaction,
      );
      const type = args.status === 'EXPIRED' ? 'charge.expired' : 'charge.cancelled';
      await recordEvent(
        {
          type,
          merchantId: charge.merchantId,
          aggregateType: 'charge',
          aggregateId: charge.id,
          payload: await presentChargeRow(charge, platformInstitution, transaction),
        },
        transaction,
      );
      await checkouts.closed({ chargeId: charge.id, status: args.status }, transaction);
    });
  }

  async function recordAlert(
    chargeId: string,
    kind: PaymentAlertKind,
    endToEndId: string | null,
    amountCents: number | null,
    details: Record<string, unknown>,
  ): Promise<void> {
    await paymentAlertStore.recordPaymentAlert(sequelize, { chargeId, kind, endToEndId, amountCents, details });
  }

  /** The provider's charge, or null when the provider says it has none. */
  async function getChargeOrNull(providerChargeId: string): Promise<ProviderCharge | null> {
    try {
      return await provider.getCharge(providerChargeId);
    } catch (err) {
      if (isNoRecord(err)) return null;
      throw err;
    }
  }

  return {
    issuePixAtProvider,
    recordIssuedCharge,
    issueAndRecordPix,
    abandonChargeIssue,
    closeProviderCharge,
    closeOrphanProviderCharge,
    settleChargePaid,
    finalizeUnpaidCharge,
    issueBoletoAtProvider: boletoActivities.issueBoletoAtProvider,
    recordIssuedBoleto: boletoActivities.recordIssuedBoleto,
    closeProviderBoleto: boletoActivities.closeProviderBoleto,
    closeOrphanProviderBoleto: boletoActivities.closeOrphanProviderBoleto,
  };
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

/** Why the provider's record does not back up a payment of this charge, or null when it does. */
function paymentProblem(
  charge: Charge,
  paid: ProviderCharge | null,
): { kind: PaymentAlertKind; message: string } | null {
  if (!paid) return { kind: 'NOT_CONFIRMED', message: `the provider has no charge ${charge.providerChargeId}` };
  if (paid.status !== 'PAID' || !paid.endToEndId || !paid.paidAt) {
    return { kind: 'NOT_CONFIRMED', message: `the provider says the charge is ${paid.status}` };
  }
  if (paid.reference !== charge.id)
    return { kind: 'REFERENCE_MISMATCH', message: `the provider's charge carries reference ${paid.reference}` };
  if (paid.amountCents !== charge.amountCents) {
    // A Pix cob is paid in full or not at all: another amount is a provider defect for a person to look at.
    return {
      kind: 'AMOUNT_MISMATCH',
      message: `paid amount ${paid.amountCents} differs from charge amount ${charge.amountCents}`,
    };
  }
  return null;
}

function issuedFrom(
  chargeId: string,
  providerChargeId: string,
  pixTxid: string,
  copyPaste: string,
  expiresAt: string,
): IssuedCharge {
  return { chargeId, providerChargeId, pixTxid, copyPaste, expiresAt };
}

function isBoletoProvider(p: PixProvider): p is PixProvider & BoletoProvider {
  const candidate = p as Partial<BoletoProvider>;
  return (
    typeof candidate.issueBoleto === 'function' &&
    typeof candidate.getBoleto === 'function' &&
    typeof candidate.cancelBoleto === 'function'
  );
}

/** The provider's own "no such charge" (a bare 404 from a proxy or a wrong URL is not one). */
function isNoRecord(err: unknown): boolean {
  return err instanceof ProviderError && err.httpStatus === 404 && err.code === 'CHARGE_NOT_FOUND';
}

/**
 * Transient provider errors are retried by Temporal; permanent ones end the attempt chain. An
 * answer of unknown outcome (PROVIDER_OUTCOME_UNKNOWN) is transient: the retry addresses the same
 * cob (its txid is our charge id's), so it finds what the lost answer created.
 */
function toActivityFailure(err: unknown): unknown {
  if (err instanceof ProviderError) {
    if (err.transient) return retryable(err);
    return ApplicationFailure.nonRetryable(err.message, ChargeFailureTypes.providerRejected);
  }
  return err;
}

/**
 * For steps that must finish (close, settle): any provider error is retried with backoff. A
 * refusal here (401 after a key rotation, 403, 409) says nothing about the payment, so waiting
 * for the provider (and an operator) beats failing the charge's run for good.
 */
function toRetryable(err: unknown): unknown {
  if (err instanceof ProviderError) return retryable(err);
  return err;
}

/** Retried after the wait the provider asked for (Retry-After on a 429 or 503), else on the activity's own backoff. */
function retryable(err: ProviderError): ApplicationFailure {
  return ApplicationFailure.create({
    message: err.message,
    type: ChargeFailureTypes.providerUnavailable,
    nonRetryable: false,
    ...(err.retryAfterMs !== null ? { nextRetryDelay: Math.min(err.retryAfterMs, MAX_PROVIDER_WAIT_MS) } : {}),
  });
}

/** A Retry-After past this is waited out in steps: the settling policy's longest interval. */
const MAX_PROVIDER_WAIT_MS = 5 * 60_000;

/** The activity's logger inside Temporal; silent when called directly (tests). */
function activityLog(level: 'warn' | 'error', message: string, attrs: Record<string, unknown>): void {
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return;
  }
  context.log[level](message, attrs);
}
