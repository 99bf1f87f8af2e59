/**
 * Refund activities: the refund's reserve, send, settle and release on the one outbound transfer
 * path (activities/transfers/transferSteps.ts states its rules). What a refund adds: its shares
 * are taken back from everyone the payment credited (core/refunds/shares.ts), under the charge's
 * lock so concurrent refunds never pass the paid amount; a Pix payment is refunded by a devolução
 * of it, a boleto paid by barcode by a transfer to a Pix key of its payer (the directory is asked
 * first); a refund whose merchant was frozen or deactivated after the reservation is parked, not
 * sent; a MED devolução is neither refused nor parked for the merchant's state, and its blocked
 * money is unblocked in the transaction that reserves it.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Logger } from 'pino';
import type { Sequelize, Transaction } from 'sequelize';
import { accounts } from '../../core/ledger/accounts';
import { move, movements, refundMoney, release, reserve, settle } from '../../core/ledger/postings';
import { findInfraction } from '../../db/med/medInfractions';
import { ProviderError, type PixKeyOwner, type PixProvider } from '../../core/provider';
import { moneyOutRefusal } from '../../core/identity/moneyOut';
import { mayBePayersKey, ownedByPayer, returnedByDevolucao } from '../../core/refunds/destination';
import { refundShares } from '../../core/refunds/shares';
import { paidMoney } from '../../core/refunds/paid';
import { TRANSFER_NOT_ACCEPTED } from '../../core/transfers/failures';
import { chargeStore } from '../../db/charges';
import { merchantStore } from '../../db/identity';
import { refundStore, type Refund } from '../../db/refunds';
import type { RefundDestination } from '../../db/refunds/refund';
import { RefundFailureTypes, type RefundInput, type ReservedRefund } from '../../workflows/refunds/types';
import { InsufficientBalanceError, writeLedgerEntry } from '../ledger/ledgerWriter';
import { recordEvent } from '../events/outbox';
import { CheckoutEffects, checkoutBaseUrl } from '../checkouts/checkoutEffects';
import { TransferFailureTypes, createTransferPath } from '../transfers/transferPath';
import {
  decide,
  lockMerchantForReserve,
  resolveTransfer,
  sendTransfer,
  settleOrReleaseOne,
  type ReservedRow,
  type TransferDecision,
} from '../transfers/transferSteps';

export interface RefundActivityDeps {
  sequelize: Sequelize;
  provider: PixProvider;
  logger: Logger;
  /** Where checkout pages live (checkout.refunded payloads); see checkoutBaseUrl. */
  publicBaseUrl?: string;
  providerCallbackUrl?: string;
}

/** PARKED: reserved, but the merchant was frozen or deactivated since; nothing sent, look again later. */
export type RefundStepOutcome = 'SUCCEEDED' | 'FAILED' | 'SKIPPED' | 'UNCONFIRMED' | 'PARKED';

const refusal = (message: string, type: string, details?: Record<string, unknown>) =>
  ApplicationFailure.create({ message, type, nonRetryable: true, details: details ? [details] : [] });

export function createRefundActivities(deps: RefundActivityDeps) {
  const { sequelize, provider } = deps;
  const transfers = createTransferPath(provider, deps.logger);
  const checkouts = new CheckoutEffects(sequelize, checkoutBaseUrl(deps));

  /**
   * Stores the refund and reserves its shares in one DB transaction, or refuses and stores
   * nothing. Under a lock on the merchant row (an operator's freeze or deactivation lands wholly
   * before or after, as for withdrawals and payouts), then on the charge row (concurrent refunds
   * of one charge queue there, so together they never pass the paid amount). A boleto paid by
   * barcode is refunded to a key of its payer only: the directory is asked first.
   */
  async function reserveRefund(input: RefundInput): Promise<ReservedRefund> {
    const known = await refundStore.findRefund(input.refundId);
    if (known) return { refundId: known.id, status: known.status };
    const directory = input.destination ? await payersKey(input) : null;
    try {
      return await sequelize.transaction(async (transaction) => {
        const existing = await refundStore.findRefund(input.refundId, transaction);
        if (existing) return { refundId: existing.id, status: existing.status };
        const owner = await chargeStore.chargeOwner(input.chargeId, transaction);
        await lockMerchantForReserve(transaction, owner?.merchantId ?? null, (merchant) => {
          // A devolução ordered by the central bank's MED goes back to the payer whatever the merchant's state.
          const held = input.medInfractionId ? null : moneyOutRefusal(merchant);
          if (held) throw merchantRefusal(held);
        });
        const charge = await chargeStore.lockCharge(input.chargeId, transaction);
        // One key, one refund (refunds_one_per_key): under the charge's lock, so two requests of
        // one key never both pass; the API answers the refund the key already made.
        const bound = input.idempotencyKey
          ? await refundStore.refundOfKey(input.chargeId, input.idempotencyKey, transaction)
          : null;
        if (bound)
          throw refusal('this idempotency key already made a refund of the charge', RefundFailureTypes.keyBound, {
            boundTo: bound.id,
          });
        const devolucao = charge ? returnedByDevolucao(charge) : false;
        if (!charge || charge.status !== 'PAID' || (!devolucao && !directory)) {
          throw refusal(
            'only a paid charge can be refunded (a boleto paid by barcode to a Pix key of its payer)',
            RefundFailureTypes.notRefundable,
            { status: charge?.status ?? null },
          );
        }
        const paid = paidMoney(charge);
        const alreadyCents = await refundStore.refundTotal(sequelize, charge.id, 'committed', transaction);
        const refundableCents = paid.amountCents - alreadyCents;
        if (input.amountCents > refundableCents) {
          throw refusal(
            `at most ${refundableCents} cents of this charge can still be refunded`,
            RefundFailureTypes.exceedsPaid,
            { refundableCents },
          );
        }
        const splits = await chargeStore.splitsOf(charge.id, transaction);
        const shares = refundShares(
          { ...paid, splits: splits.map((s) => ({ merchantId: s.merchantId, amountCents: s.amountCents })) },
          alreadyCents,
          input.amountCents,
        );
        const row = await refundStore.createRefund(
          {
            id: input.refundId,
            chargeId: charge.id,
            merchantId: charge.merchantId,
            amountCents: input.amountCents,
            reason: input.reason,
            status: 'PROCESSING',
            shares,
            idempotencyKey: input.idempotencyKey,
            requestedBy: input.requestedBy,
            destination: devolucao ? null : directory,
            medInfractionId: input.medInfractionId ?? null,
          },
          transaction,
        );
        if (input.medInfractionId) {
          // blocked → available → reserved, in this one transaction (keyed: one unblock per infraction).
          const infraction = await findInfraction(sequelize, input.medInfractionId, { transaction, lock: true });
          const blocked = Number(infraction?.blocked_cents ?? 0);
          if (infraction && blocked > 0)
            await writeLedgerEntry(
              sequelize,
              move(
                movements.medInfraction(infraction.id).unblock,
                accounts.merchantBlocked(infraction.merchant_id),
                accounts.merchantAvailable(infraction.merchant_id),
                blocked,
              ),
              transaction,
            );
        }
        await writeLedgerEntry(sequelize, reserve(movements.refund(row.id).reserve, moneyOf(row).shares), transaction);
        return { refundId: row.id, status: row.status };
      });
    } catch (err) {
      if (err instanceof InsufficientBalanceError) {
        // Whose balance: the owner's or a split merchant's (their shares are taken back too).
        const merchantId = /^merchant:([0-9a-f-]{36}):/.exec(err.accountCode)?.[1] ?? null;
        throw refusal('the available balance does not cover this refund', RefundFailureTypes.insufficientBalance, {
          merchantId,
        });
      }
      throw err;
    }
  }

  /**
   * The destination of a boleto's refund as stored: the payer's document (the transfer names
   * it, so the provider checks it too) and the directory's answer for the key; or a refusal
   * when the directory does not know the key or its owner is not the boleto's payer.
   */
  async function payersKey(input: RefundInput): Promise<RefundDestination> {
    const destination = input.destination!;
    const charge = await chargeStore.findCharge(input.chargeId);
    const payerDocument = charge?.payerDetails?.taxId;
    if (!payerDocument)
      throw refusal('the charge has no payer to refund to', RefundFailureTypes.notRefundable, {
        status: charge?.status ?? null,
      });
    const notPayer = () =>
      refusal("the Pix key does not belong to the boleto's payer", RefundFailureTypes.destinationNotPayer);
    if (!mayBePayersKey(destination, payerDocument)) throw notPayer();
    // A PSP without a directory look-up (Efí): the send names the payer's document and the PSP
    // refuses a key of anyone else (RECIPIENT_DOCUMENT_MISMATCH, the reservation released).
    if (!provider.lookUpPixKey) return { ...destination, document: payerDocument };
    let owner: PixKeyOwner | null;
    try {
      owner = await provider.lookUpPixKey(destination.pixKey);
    } catch (err) {
      // Our code only: the provider's text may name hosts or keys.
      if (err instanceof ProviderError)
        throw ApplicationFailure.retryable(
          `the payment institution did not answer the key look-up (${err.code})`,
          TransferFailureTypes.unavailable,
        );
      throw err;
    }
    if (!owner) throw refusal('the Pix key is not in the Pix directory (DICT)', RefundFailureTypes.destinationNotFound);
    if (!ownedByPayer(owner, payerDocument)) throw notPayer();
    return {
      ...destination,
      document: payerDocument,
      directory: { owner: owner.owner, bank: owner.bank, checkedAt: new Date().toISOString() },
    };
  }

  /**
   * Gave up waiting for the reservation: a FAILED row, unless one exists, makes a late attempt
   * store nothing (it finds the row and answers it). The caller was told the refund did not happen.
   */
  async function abandonRefundReserve(input: RefundInput): Promise<ReservedRefund | null> {
    const charge = await chargeStore.findCharge(input.chargeId);
    if (!charge) return null;
    const { refund: row, created } = await refundStore.createRefundOnce({
      id: input.refundId,
      chargeId: charge.id,
      merchantId: charge.merchantId,
      amountCents: input.amountCents,
      reason: input.reason,
      status: 'FAILED',
      shares: { ownerCents: 0, feeCents: 0, splits: [] },
      // Not the key's effect: the caller was told nothing was refunded, and may retry with the key.
      idempotencyKey: null,
      requestedBy: input.requestedBy,
      failureCode: 'NOT_PROCESSED',
      failureReason: 'the refund could not be processed; nothing was sent',
    });
    // A late attempt committed first: the refund is reserved and must go on, not be forgotten.
    return created || row.status === 'FAILED' ? null : { refundId: row.id, status: row.status };
  }

  /**
   * Sends the devolução or the transfer (refund id as key) and settles or releases it at once
   * when the provider's answer is known; UNCONFIRMED when it has no record (wait, then
   * resolveRefund). PARKED when the merchant was frozen or deactivated after the reservation:
   * nothing is sent (as payout items), unless a MED devolução.
   */
  async function sendRefund(args: { refundId: string }): Promise<RefundStepOutcome> {
    const refund = await refundStore.findRefund(args.refundId);
    if (!refund || refund.status !== 'PROCESSING') return 'SKIPPED';
    // A later attempt may follow one whose answer was lost: the provider's record comes first.
    const retry = Context.current().info.attempt > 1;
    if (!refund.medInfractionId && moneyOutRefusal(await merchantStore.findMerchant(refund.merchantId))) {
      const known = retry ? await transfers.lookup(await lookupOf(refund)) : null;
      return known ? finish(refund.id, decide(known)) : 'PARKED';
    }
    const charge = await chargeStore.findCharge(refund.chargeId);
    const to = refund.destination;
    if (!to && !charge?.endToEndId)
      throw ApplicationFailure.nonRetryable(`charge ${refund.chargeId} has no endToEndId`, 'RefundStateConflict');
    const sent = await sendTransfer(
      transfers,
      to
        ? {
            reference: refund.id,
            amountCents: refund.amountCents,
            pixKey: to.pixKey,
            pixKeyType: to.pixKeyType,
            recipientName: to.name,
            recipientDocument: to.document,
          }
        : { reference: refund.id, amountCents: refund.amountCents, endToEndId: charge!.endToEndId! },
      { retry },
    );
    if (sent.kind === 'UNCONFIRMED') {
      await refundStore.updateRefund(refund, { failureCode: sent.code, failureReason: TRANSFER_NOT_ACCEPTED.reason });
      return 'UNCONFIRMED';
    }
    return finish(refund.id, sent);
  }

  /**
   * After the grace period: the provider's record decides; with none, nothing was sent and the
   * shares go back (`cancelled`: an operator cancelled the parked refund).
   */
  async function resolveRefund(args: { refundId: string; cancelled?: boolean }): Promise<RefundStepOutcome> {
    const refund = await refundStore.findRefund(args.refundId);
    if (!refund || refund.status !== 'PROCESSING') return 'SKIPPED';
    return finish(refund.id, await resolveTransfer(transfers, await lookupOf(refund), { cancelled: args.cancelled }));
  }

  /** What the provider knows the refund's money out by: a devolução by its payment too, a transfer to a key by our reference. */
  async function lookupOf(refund: Refund): Promise<{ reference: string; amountCents: number; endToEndId?: string }> {
    const endToEndId = refund.destination ? null : (await chargeStore.chargeEndToEndIdRow(refund.chargeId))?.endToEndId;
    return { reference: refund.id, amountCents: refund.amountCents, ...(endToEndId ? { endToEndId } : {}) };
  }

  /** Settled: money out (SUCCEEDED, charge.refunded); released: shares back (FAILED); SKIPPED when it had moved already. */
  async function finish(refundId: string, decision: TransferDecision): Promise<RefundStepOutcome> {
    const done = await settleOrReleaseOne(sequelize, reservedRefund(refundId), decision);
    if (!done?.moved) return 'SKIPPED';
    return decision.kind === 'SETTLE' ? 'SUCCEEDED' : 'FAILED';
  }

  /** The settle and release steps of one refund's row (transferSteps.ts). */
  function reservedRefund(refundId: string): ReservedRow<Refund> {
    return {
      lock: (transaction) => refundStore.lockRefund(refundId, transaction),
      stateOf: (r) => (r.status === 'PROCESSING' ? 'RESERVED' : r.status === 'SUCCEEDED' ? 'SETTLED' : 'RELEASED'),
      apply: async (refund, decision, transaction) => {
        const now = new Date();
        if (decision.kind === 'SETTLE') {
          await refundStore.updateRefund(
            refund,
            {
              status: 'SUCCEEDED',
              settledAt: now,
              providerTransferId: decision.providerTransferId,
              endToEndId: decision.endToEndId,
              failureCode: null,
              failureReason: null,
            },
            transaction,
          );
          return;
        }
        await refundStore.updateRefund(
          refund,
          {
            status: 'FAILED',
            releasedAt: now,
            providerTransferId: decision.providerTransferId,
            failureCode: decision.failure.code,
            failureReason: decision.failure.reason,
          },
          transaction,
        );
      },
      entry: (refund, decision) => {
        const keys = movements.refund(refund.id);
        return decision.kind === 'SETTLE'
          ? settle(keys.settle, moneyOf(refund))
          : release(keys.release, moneyOf(refund).shares);
      },
      recorded: async (refund, decision, transaction) => {
        if (decision.kind === 'SETTLE') await refundedEvent(refund, transaction);
      },
      describe: (refund) => `refund ${refund.id} is ${refund.status}`,
      conflictType: 'RefundStateConflict',
    };
  }

  async function refundedEvent(refund: Refund, transaction: Transaction): Promise<void> {
    const charge = await chargeStore.findCharge(refund.chargeId, transaction);
    if (!charge) return;
    const refundedAmountCents = await refundStore.refundTotal(sequelize, charge.id, 'succeeded', transaction);
    // Fully refunded: the checkout it backs (if any) is REFUNDED and its enrolments revoked.
    if (refundedAmountCents >= paidMoney(charge).amountCents)
      await checkouts.refunded({ chargeId: charge.id }, transaction);
    await recordEvent(
      {
        type: 'charge.refunded',
        merchantId: charge.merchantId,
        aggregateType: 'charge',
        aggregateId: charge.id,
        dedupKey: `charge.refunded:${refund.id}`,
        payload: {
          chargeId: charge.id,
          refundId: refund.id,
          amountCents: refund.amountCents,
          refundedAmountCents,
          remainingAmountCents: paidMoney(charge).amountCents - refundedAmountCents,
          reason: refund.reason,
          endToEndId: refund.endToEndId,
          refundedAt: refund.settledAt?.toISOString() ?? null,
        },
      },
      transaction,
    );
  }

  return { reserveRefund, abandonRefundReserve, sendRefund, resolveRefund };
}

function merchantRefusal(held: 'MERCHANT_INACTIVE' | 'WITHDRAWAL_FROZEN'): ApplicationFailure {
  return held === 'MERCHANT_INACTIVE'
    ? refusal('the merchant is not active', RefundFailureTypes.merchantInactive)
    : refusal('withdrawals, payouts and refunds are frozen for this merchant', RefundFailureTypes.merchantFrozen);
}

function moneyOf(refund: Refund) {
  return refundMoney({ merchantId: refund.merchantId, amountCents: refund.amountCents, shares: refund.shares });
}

export type RefundActivities = ReturnType<typeof createRefundActivities>;
