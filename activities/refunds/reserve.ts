/**
 * The refund's reservation: its shares are taken back from everyone the payment credited
 * (core/refunds/shares.ts), under the charge's lock so concurrent refunds never pass the paid
 * amount; a MED devolução is not refused for the merchant's state, and its blocked money is
 * unblocked in the transaction that reserves it.
 */
import type { Transaction } from 'sequelize';
import { movements, reserve } from '../../core/ledger/postings';
import { moneyOutRefusal } from '../../core/identity/moneyOut';
import { returnedByDevolucao } from '../../core/refunds/destination';
import { paidMoney } from '../../core/refunds/paid';
import { refundShares } from '../../core/refunds/shares';
import { chargeStore, type Charge } from '../../db/charges';
import { devolucaoOf, type ClaimParty } from '../../core/med/claim';
import type { RefundShares } from '../../core/refunds/shares';
import { findInfraction, hasOpenInfraction } from '../../db/med/medInfractionStore';
import { refundStore } from '../../db/refunds';
import type { RefundDestination } from '../../db/refunds/refund';
import { RefundFailureTypes, type RefundInput, type ReservedRefund } from '../../workflows/refunds/types';
import { InsufficientBalanceError, writeLedgerEntries, writeLedgerEntry } from '../ledger/ledgerWriter';
import { unblockAll } from '../med/infraction';
import { lockMerchantForReserve } from '../transfers/transferSteps';
import type { RefundDeps } from './deps';
import { payersKey } from './destination';
import { merchantRefusal, refusal } from './refusal';
import { refundMoneyOf } from './settle';

/**
 * Stores the refund and reserves its shares in one DB transaction, or refuses and stores
 * nothing. Under a lock on the merchant row (an operator's freeze or deactivation lands wholly
 * before or after, as for withdrawals and payouts), then on the charge row (concurrent refunds
 * of one charge queue there, so together they never pass the paid amount). A boleto paid by
 * barcode is refunded to a key of its payer only: the directory is asked first.
 */
export async function reserveRefund(deps: RefundDeps, input: RefundInput): Promise<ReservedRefund> {
  const known = await refundStore.findRefund(input.refundId);
  if (known) return { refundId: known.id, status: known.status };
  const directory = input.destination ? await payersKey(deps, input) : null;
  try {
    return await deps.sequelize.transaction((transaction) => reserveIn(deps, input, directory, transaction));
  } catch (err) {
    if (err instanceof InsufficientBalanceError) {
      // Whose balance: the owner's or a split merchant's (their shares are taken back too). A
      // connected charge's devolução takes it all from the owner's own account (sharesToTakeBack):
      // said so, since that is the rule a connected merchant needs to know.
      const merchantId = /^merchant:([0-9a-f-]{36}):/.exec(err.accountCode)?.[1] ?? null;
      const ownAccount = Boolean((await chargeStore.findCharge(input.chargeId))?.pspConnectionId);
      throw refusal('the available balance does not cover this refund', RefundFailureTypes.insufficientBalance, {
        merchantId,
        ownAccount,
      });
    }
    throw err;
  }
}

async function reserveIn(
  deps: RefundDeps,
  input: RefundInput,
  directory: RefundDestination | null,
  transaction: Transaction,
): Promise<ReservedRefund> {
  const { sequelize } = deps;
  const existing = await refundStore.findRefund(input.refundId, transaction);
  if (existing) return { refundId: existing.id, status: existing.status };
  const charge = await lockRefundableCharge(input, directory, transaction);
  const infraction = input.medInfractionId
    ? await findInfraction(sequelize, input.medInfractionId, { transaction, lock: true })
    : null;
  if (!infraction && (await hasOpenInfraction(sequelize, charge.id, transaction)))
    throw refusal(
      'this charge has an open Pix infraction (MED): it cannot be refunded until the infraction is decided',
      RefundFailureTypes.infractionOpen,
    );
  const standard = await sharesToTakeBack(deps, charge, input.amountCents, transaction);
  const shares = infraction?.parties ? devolucaoShares(infraction.parties, charge.merchantId, standard) : standard;
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
      destination: returnedByDevolucao(charge) ? null : directory,
      medInfractionId: input.medInfractionId ?? null,
    },
    transaction,
  );
  // blocked → available → reserved, in this one transaction (keyed: one unblock per party).
  if (infraction) await writeLedgerEntries(sequelize, unblockAll(infraction), transaction);
  await writeLedgerEntry(sequelize, reserve(movements.refund(row.id).reserve, refundMoneyOf(row).shares), transaction);
  return { refundId: row.id, status: row.status };
}

/** The charge, locked after its merchant, paid, refundable to where the refund goes, and its key unused. */
async function lockRefundableCharge(
  input: RefundInput,
  directory: RefundDestination | null,
  transaction: Transaction,
): Promise<Charge> {
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
  return charge;
}

/** Each share of `amountCents` taken back from who the payment credited, within what is left to refund. */
async function sharesToTakeBack(deps: RefundDeps, charge: Charge, amountCents: number, transaction: Transaction) {
  const paid = paidMoney(charge);
  const alreadyCents = await refundStore.refundTotal(deps.sequelize, charge.id, 'committed', transaction);
  const refundableCents = paid.amountCents - alreadyCents;
  if (amountCents > refundableCents) {
    throw refusal(
      `at most ${refundableCents} cents of this charge can still be refunded`,
      RefundFailureTypes.exceedsPaid,
      { refundableCents },
    );
  }
  // A connected merchant's devolução leaves its own account whole: Efí's devolução takes money only
  // from the account that received the Pix, and what the PSP passed on at settlement (the
  // platform's fee, partners' shares) stays in those accounts (docs/account-models.md). So the
  // ledger's mirror takes it all from the owner too, and a refund above what the owner holds is
  // refused here, before anything is sent (INSUFFICIENT_BALANCE_FOR_REFUND).
  if (charge.pspConnectionId) return { ownerCents: amountCents, feeCents: 0, splits: [] };
  const splits = await chargeStore.splitsOf(charge.id, transaction);
  return refundShares(
    { ...paid, splits: splits.map((s) => ({ merchantId: s.merchantId, amountCents: s.amountCents })) },
    alreadyCents,
    amountCents,
  );
}

/**
 * A MED devolução of a claim held by parties (core/med/claim.ts devolucaoOf): each gives back its
 * share from what it holds; what it still owes is advanced by the platform (advancedCents) and
 * stays owed. The platform's fee share as every refund's. When the claim's shares no longer match
 * the refund (it returns less than was claimed), the refund's own shares (MED 1).
 */
function devolucaoShares(parties: ClaimParty[], ownerId: string, standard: RefundShares): RefundShares {
  const partnerOf = new Map(parties.filter((p) => p.merchantId !== ownerId).map((p) => [p.merchantId, p]));
  const owner = parties.find((p) => p.merchantId === ownerId);
  const claimed = parties.reduce((a, p) => a + p.shareCents, 0);
  const standardTotal = standard.ownerCents + standard.splits.reduce((a, s) => a + s.amountCents, 0);
  if (!owner || claimed !== standardTotal) return standard;
  const splits = [...partnerOf.values()].map((p) => ({
    merchantId: p.merchantId,
    amountCents: devolucaoOf(p).fromHeldCents,
  }));
  const advancedCents = parties.reduce((a, p) => a + devolucaoOf(p).advancedCents, 0);
  return {
    ownerCents: devolucaoOf(owner).fromHeldCents,
    feeCents: standard.feeCents,
    splits,
    ...(advancedCents > 0 ? { advancedCents } : {}),
  };
}

/**
 * Gave up waiting for the reservation: a FAILED row, unless one exists, makes a late attempt
 * store nothing (it finds the row and answers it). The caller was told the refund did not happen.
 */
export async function abandonRefundReserve(input: RefundInput): Promise<ReservedRefund | null> {
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
