/**
 * Settling a Pix charge's payment on the provider's record (a boleto's: activities/boletos/settleBoleto.ts).
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Transaction } from 'sequelize';
import { chargePaidEntry } from '../../core/ledger/postings';
import type { ProviderCharge } from '../../core/provider';
import { chargeStore, type Charge, type PaymentAlertKind } from '../../db/charges';
import { presentSellerCharge } from '../../core/charges/presentSellerCharge';
import type { PaymentConfirmation } from '../../core/charges/paymentConfirmation';
import type { SettleOutcome } from '../../workflows/charges/types';
import { settleBoleto } from '../boletos/settleBoleto';
import { splitSendStore } from '../../db/splitSends';
import { writeLedgerEntry } from '../ledger/ledgerWriter';
import { startOwedSends } from '../splitSends/start';
import { recordEvent } from '../events/outbox';
import { activityLog, recordAlert } from './alerts';
import type { ChargeDeps } from './deps';
import { getChargeOrNull, toRetryable } from './providerErrors';

/**
 * Credits a payment once the provider confirms it: its record of our charge must be PAID, carry
 * our reference and the charge's amount. endToEndId, paidAt and payer come from that record,
 * never from the claim (`payment`), which only says "go and look". A claim the provider does
 * not back up, or a paid record that differs from the charge, credits nothing: it is stored in
 * payment_alerts and logged, and the charge is left as it was. Provider errors are retried.
 */
export async function settleChargePaid(
  deps: ChargeDeps,
  args: { chargeId: string; payment: PaymentConfirmation },
): Promise<{ outcome: SettleOutcome }> {
  const charge = await chargeStore.findCharge(args.chargeId);
  if (!charge) throw ApplicationFailure.nonRetryable(`charge ${args.chargeId} not found`, 'ChargeNotFound');
  if (charge.method === 'BOLETO') return { outcome: await settleBoleto(deps, charge, args.payment) };
  // A subscription cycle's charge is credited on its cobr's record only (activities/subscriptions settleCycle).
  if (charge.subscriptionId)
    throw ApplicationFailure.nonRetryable(
      `charge ${charge.id} is a subscription cycle's: settled by its subscription, not here`,
      'SubscriptionCycleCharge',
    );
  if (charge.status === 'PAID') {
    // A rerun after a worker died between the credit and the start of its sends starts them now.
    if (charge.pspConnectionId) await startOwedSends(deps.sequelize, charge.id);
    return { outcome: await alreadyPaid(deps, charge, args.payment.endToEndId) };
  }

  let paid: ProviderCharge | null;
  try {
    const { provider } = await deps.accounts.forConnection(charge.pspConnectionId ?? null);
    paid = await getChargeOrNull(provider, charge.providerChargeId as string);
  } catch (err) {
    throw toRetryable(err);
  }
  const problem = paymentProblem(charge, paid);
  if (problem) {
    activityLog('error', `payment not credited: ${problem.message}`, { chargeId: charge.id, kind: problem.kind });
    const endToEndId = problem.kind === 'NOT_CONFIRMED' ? args.payment.endToEndId : (paid?.endToEndId ?? null);
    await recordAlert(
      deps.sequelize,
      charge.id,
      problem.kind,
      endToEndId,
      paid?.amountCents ?? args.payment.amountCents,
      {
        message: problem.message,
        providerStatus: paid?.status ?? null,
        claimedAmountCents: args.payment.amountCents,
      },
    );
    return { outcome: problem.kind === 'NOT_CONFIRMED' ? 'NOT_CONFIRMED' : 'MISMATCH' };
  }
  const credited = await creditPayment(deps, args.chargeId, paid as ProviderCharge);
  // Shares sent from the owner's account after settlement: owed since the credit committed.
  if (charge.pspConnectionId) await startOwedSends(deps.sequelize, charge.id);
  return credited;
}

/**
 * The confirmed payment credited once, under the charge's row lock: ledger, row, charge.paid,
 * checkout. The one credit of a Pix payment: a subscription cycle's charge is credited here too
 * (activities/subscriptions settleCycle, on the cobr's record), `alsoIn` writing its cycle in the
 * same transaction (run only when this call credits).
 */
export async function creditPayment(
  deps: Pick<ChargeDeps, 'sequelize' | 'checkouts' | 'platformInstitution'>,
  chargeId: string,
  confirmed: Pick<ProviderCharge, 'paidAt' | 'endToEndId' | 'payer'>,
  alsoIn?: (transaction: Transaction) => Promise<void>,
): Promise<{ outcome: SettleOutcome }> {
  const { sequelize } = deps;
  return sequelize.transaction(async (transaction) => {
    // The row lock, the PAID mark and what the rest reads (splits, owner, webhook) in one statement.
    const paid = await chargeStore.markPaid(
      sequelize,
      chargeId,
      {
        paidAt: new Date(confirmed.paidAt as string),
        endToEndId: confirmed.endToEndId,
        payerSnapshot: confirmed.payer ? { ...confirmed.payer } : null,
      },
      transaction,
    );
    if (!paid) {
      if (!(await chargeStore.chargeExists(chargeId, transaction)))
        throw ApplicationFailure.nonRetryable(`charge ${chargeId} not found`, 'ChargeNotFound');
      return { outcome: 'ALREADY_PAID' as const };
    }
    const { charge, splits, owner, webhook } = paid;
    if (!owner) throw new Error(`merchant ${charge.merchantId} of charge ${charge.id} is missing`);
    // Shares the PSP left in the owner's account to be sent from there: reserved there, owed from now.
    // Only a split charge issued on a connection has any (no extra statement on the platform's).
    const sends = owesSends(charge, splits.length)
      ? await splitSendStore.sendsOfCharge(sequelize, charge.id, transaction)
      : [];
    if (sends.length > 0) await splitSendStore.markOwed(sequelize, charge.id, transaction);
    await writeLedgerEntry(
      sequelize,
      chargePaidEntry({
        chargeId: charge.id,
        merchantId: charge.merchantId,
        amountCents: charge.amountCents,
        feeCents: charge.feeCents,
        splits: splits.map((s) => ({ merchantId: s.merchantId, amountCents: s.amountCents })),
        sentFromOwner: sends.map((s) => s.recipientMerchantId),
      }),
      transaction,
    );
    await recordEvent(
      {
        type: 'charge.paid',
        merchantId: charge.merchantId,
        aggregateType: 'charge',
        aggregateId: charge.id,
        // Presented from what markPaid read, in this transaction: nothing is read again.
        payload: presentSellerCharge({
          charge: charge.get({ plain: true }) as never,
          splits,
          merchant: owner,
          webhook: webhook ? { ...webhook, secret: null } : null,
          platformInstitution: deps.platformInstitution,
        }),
      },
      transaction,
    );
    // Money that arrived is never dropped: a late payment moves an EXPIRED/CANCELLED checkout to PAID too.
    await deps.checkouts.paid(
      {
        chargeId: charge.id,
        amountCents: charge.amountCents,
        paidAt: new Date(confirmed.paidAt as string),
        studentName: confirmed.payer?.name ?? null,
        studentDocument: confirmed.payer?.document ?? null,
      },
      transaction,
    );
    if (alsoIn) await alsoIn(transaction);
    return { outcome: 'SETTLED' as const };
  });
}

/** A claim for a charge already PAID: the same payment is a duplicate; another one is an alert. */
async function alreadyPaid(
  deps: Pick<ChargeDeps, 'sequelize'>,
  charge: Charge,
  claimedEndToEndId: string,
): Promise<SettleOutcome> {
  if (claimedEndToEndId && claimedEndToEndId !== charge.endToEndId) {
    await recordAlert(deps.sequelize, charge.id, 'DUPLICATE_PAYMENT', claimedEndToEndId, null, {
      paidEndToEndId: charge.endToEndId,
    });
  }
  return 'ALREADY_PAID';
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

/** Split sends are written at issue only for a charge issued on a merchant's connection with splits. */
function owesSends(charge: Pick<Charge, 'pspConnectionId'>, splitCount: number): boolean {
  return charge.pspConnectionId !== null && splitCount > 0;
}
