/**
 * Refund activities: the reservation of the shares, the devolução through the one transfer
 * path (activities/transfers/transferPath.ts), and the final ledger movement. Each is idempotent: the
 * provider call carries the refund id as idempotency key, DB writes lock the refund row and are
 * keyed by ledger movement key, so a refund is completed or released, never both.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Sequelize, Transaction } from 'sequelize';
import { refundTotal } from '../../db/refunds/refundTotals';
import {
  medUnblockEntry,
  refundCompletedEntry,
  refundReleasedEntry,
  refundReservedEntry,
  type RefundMoney,
} from '../../core/ledger/postings';
import { findInfraction } from '../../db/med/medInfractions';
import { ProviderError, type PixKeyOwner, type PixProvider } from '../../core/provider';
import { moneyOutRefusal } from '../../core/identity/moneyOut';
import { mayBePayersKey, ownedByPayer, returnedByDevolucao } from '../../core/refunds/destination';
import { refundShares } from '../../core/refunds/shares';
import { paidMoney } from '../../core/refunds/paid';
import {
  CANCELLED_BEFORE_TRANSFER,
  TRANSFER_NOT_ACCEPTED,
  describeTransferFailure,
} from '../../core/transfers/failures';
import { Charge, ChargeSplit, Merchant, Refund } from '../../db/models';
import type { RefundDestination } from '../../db/refunds/refund';
import { RefundFailureTypes, type RefundInput, type ReservedRefund } from '../../workflows/refunds/types';
import { InsufficientBalanceError, writeLedgerEntry } from '../ledger/ledgerWriter';
import { recordEvent } from '../events/outbox';
import { CheckoutEffects, checkoutBaseUrl } from '../checkouts/checkoutEffects';
import { TransferFailureTypes, createTransferPath, type TransferAnswer } from '../transfers/transferPath';

export interface RefundActivityDeps {
  sequelize: Sequelize;
  provider: PixProvider;
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
  const transfers = createTransferPath(provider);
  const checkouts = new CheckoutEffects(sequelize, checkoutBaseUrl(deps));

  /**
   * Stores the refund and reserves its shares in one DB transaction, or refuses and stores
   * nothing. Under a lock on the merchant row (an operator's freeze or deactivation lands wholly
   * before or after, as for withdrawals and payouts), then on the charge row (concurrent refunds
   * of one charge queue there, so together they never pass the paid amount). A boleto paid by
   * barcode is refunded to a key of its payer only: the directory is asked first.
   */
  async function reserveRefund(input: RefundInput): Promise<ReservedRefund> {
    const known = await Refund.findByPk(input.refundId);
    if (known) return { refundId: known.id, status: known.status };
    const directory = input.destination ? await payersKey(input) : null;
    try {
      return await sequelize.transaction(async (transaction) => {
        const existing = await Refund.findByPk(input.refundId, { transaction });
        if (existing) return { refundId: existing.id, status: existing.status };
        const owner = await Charge.findByPk(input.chargeId, { attributes: ['merchantId'], transaction });
        const merchant = owner
          ? await Merchant.findByPk(owner.merchantId, { transaction, lock: transaction.LOCK.UPDATE })
          : null;
        // A devolução ordered by the central bank's MED goes back to the payer whatever the merchant's state.
        const held = input.medInfractionId ? null : moneyOutRefusal(merchant);
        if (held) throw merchantRefusal(held);
        const charge = await Charge.findByPk(input.chargeId, { transaction, lock: transaction.LOCK.UPDATE });
        const devolucao = charge ? returnedByDevolucao(charge) : false;
        if (!charge || charge.status !== 'PAID' || (!devolucao && !directory)) {
          throw refusal(
            'only a paid charge can be refunded (a boleto paid by barcode to a Pix key of its payer)',
            RefundFailureTypes.notRefundable,
            { status: charge?.status ?? null },
          );
        }
        const paid = paidMoney(charge);
        const alreadyCents = await refundTotal(sequelize, charge.id, 'committed', transaction);
        const refundableCents = paid.amountCents - alreadyCents;
        if (input.amountCents > refundableCents) {
          throw refusal(
            `at most ${refundableCents} cents of this charge can still be refunded`,
            RefundFailureTypes.exceedsPaid,
            { refundableCents },
          );
        }
        const splits = await ChargeSplit.findAll({
          where: { chargeId: charge.id },
          order: [['position', 'ASC']],
          transaction,
        });
        const shares = refundShares(
          { ...paid, splits: splits.map((s) => ({ merchantId: s.merchantId, amountCents: s.amountCents })) },
          alreadyCents,
          input.amountCents,
        );
        const row = await Refund.create(
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
          { transaction },
        );
        if (input.medInfractionId) {
          // blocked → available → reserved, in this one transaction (keyed: one unblock per infraction).
          const infraction = await findInfraction(sequelize, input.medInfractionId, { transaction, lock: true });
          const blocked = Number(infraction?.blocked_cents ?? 0);
          if (infraction && blocked > 0)
            await writeLedgerEntry(
              sequelize,
              medUnblockEntry({
                infractionId: infraction.id,
                merchantId: infraction.merchant_id,
                amountCents: blocked,
              }),
              transaction,
            );
        }
        await writeLedgerEntry(sequelize, refundReservedEntry(moneyOf(row)), transaction);
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
    const charge = await Charge.findByPk(input.chargeId);
    const payerDocument = charge?.payerDetails?.taxId;
    if (!payerDocument)
      throw refusal('the charge has no payer to refund to', RefundFailureTypes.notRefundable, {
        status: charge?.status ?? null,
      });
    const notPayer = () =>
      refusal("the Pix key does not belong to the boleto's payer", RefundFailureTypes.destinationNotPayer);
    if (!mayBePayersKey(destination, payerDocument)) throw notPayer();
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
    const charge = await Charge.findByPk(input.chargeId);
    if (!charge) return null;
    const [row, created] = await Refund.findOrCreate({
      where: { id: input.refundId },
      defaults: {
        id: input.refundId,
        chargeId: charge.id,
        merchantId: charge.merchantId,
        amountCents: input.amountCents,
        reason: input.reason,
        status: 'FAILED',
        shares: { ownerCents: 0, feeCents: 0, splits: [] },
        idempotencyKey: input.idempotencyKey,
        requestedBy: input.requestedBy,
        failureCode: 'NOT_PROCESSED',
        failureReason: 'the refund could not be processed; nothing was sent',
      },
    });
    // A late attempt committed first: the refund is reserved and must go on, not be forgotten.
    return created || row.status === 'FAILED' ? null : { refundId: row.id, status: row.status };
  }

  /**
   * Sends the devolução or the transfer (refund id as key) and settles from the answer;
   * UNCONFIRMED: wait, then resolveRefund. PARKED when the merchant was frozen or deactivated
   * after the reservation: nothing is sent (as payout items), unless a MED devolução.
   */
  async function sendRefund(args: { refundId: string }): Promise<RefundStepOutcome> {
    const refund = await Refund.findByPk(args.refundId);
    if (!refund || refund.status !== 'PROCESSING') return 'SKIPPED';
    // A later attempt may follow one whose answer was lost: the provider's record comes first.
    const retry = Context.current().info.attempt > 1;
    if (!refund.medInfractionId && moneyOutRefusal(await Merchant.findByPk(refund.merchantId))) {
      const known = retry ? await transfers.lookup(await lookupOf(refund)) : null;
      return known ? settle(refund.id, known) : 'PARKED';
    }
    const charge = await Charge.findByPk(refund.chargeId);
    const to = refund.destination;
    if (!to && !charge?.endToEndId)
      throw ApplicationFailure.nonRetryable(`charge ${refund.chargeId} has no endToEndId`, 'RefundStateConflict');
    const answer = await transfers.send(
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
    if (answer.kind === 'NO_RECORD') {
      await refund.update({ failureCode: answer.code, failureReason: TRANSFER_NOT_ACCEPTED.reason });
      return 'UNCONFIRMED';
    }
    return settle(refund.id, answer);
  }

  /**
   * After the grace period: the provider's record decides; with none, nothing was sent and the
   * shares go back (`cancelled`: an operator cancelled the parked refund).
   */
  async function resolveRefund(args: { refundId: string; cancelled?: boolean }): Promise<RefundStepOutcome> {
    const refund = await Refund.findByPk(args.refundId);
    if (!refund || refund.status !== 'PROCESSING') return 'SKIPPED';
    const answer = await transfers.lookup(await lookupOf(refund));
    return settle(
      refund.id,
      answer ?? {
        kind: 'NO_RECORD',
        code: args.cancelled ? CANCELLED_BEFORE_TRANSFER.code : TRANSFER_NOT_ACCEPTED.code,
      },
    );
  }

  /** What the provider knows the refund's money out by: a devolução by its payment too, a transfer to a key by our reference. */
  async function lookupOf(refund: Refund): Promise<{ reference: string; amountCents: number; endToEndId?: string }> {
    const endToEndId = refund.destination
      ? null
      : (await Charge.findByPk(refund.chargeId, { attributes: ['endToEndId'] }))?.endToEndId;
    return { reference: refund.id, amountCents: refund.amountCents, ...(endToEndId ? { endToEndId } : {}) };
  }

  /** COMPLETED → money out (SUCCEEDED, event); anything else → shares released (FAILED). */
  async function settle(refundId: string, answer: TransferAnswer): Promise<RefundStepOutcome> {
    return sequelize.transaction(async (transaction) => {
      const refund = await Refund.findByPk(refundId, { transaction, lock: transaction.LOCK.UPDATE });
      if (!refund || refund.status !== 'PROCESSING') return 'SKIPPED';
      const now = new Date();
      if (answer.kind === 'COMPLETED') {
        await writeLedgerEntry(sequelize, refundCompletedEntry(moneyOf(refund)), transaction);
        await refund.update(
          {
            status: 'SUCCEEDED',
            settledAt: now,
            providerTransferId: answer.transfer.id,
            endToEndId: answer.transfer.endToEndId,
            failureCode: null,
            failureReason: null,
          },
          { transaction },
        );
        await refundedEvent(refund, transaction);
        return 'SUCCEEDED';
      }
      const failure =
        answer.kind === 'REFUSED'
          ? describeTransferFailure(answer.transfer.failureCode)
          : describeTransferFailure(answer.code);
      await writeLedgerEntry(sequelize, refundReleasedEntry(moneyOf(refund)), transaction);
      await refund.update(
        {
          status: 'FAILED',
          releasedAt: now,
          providerTransferId: answer.kind === 'REFUSED' ? answer.transfer.id : null,
          failureCode: failure.code,
          failureReason: failure.reason,
        },
        { transaction },
      );
      return 'FAILED';
    });
  }

  async function refundedEvent(refund: Refund, transaction: Transaction): Promise<void> {
    const charge = await Charge.findByPk(refund.chargeId, { transaction });
    if (!charge) return;
    const refundedAmountCents = await refundTotal(sequelize, charge.id, 'succeeded', transaction);
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

function moneyOf(refund: Refund): RefundMoney {
  return { refundId: refund.id, merchantId: refund.merchantId, amountCents: refund.amountCents, shares: refund.shares };
}

export type RefundActivities = ReturnType<typeof createRefundActivities>;
