/**
 * Boleto charges (method BOLETO) are charge activities: ChargeLifecycle runs their steps
 * (issueBoleto.ts, closeBoleto.ts, and this settle), activities/charges/index.ts lists them, and
 * they share the charge's record step and alert store.
 *
 * Money rules:
 * - A boleto.paid callback is a claim, like a Pix one: settlement asks the provider (getBoleto)
 *   and credits only a record that is PAID, carries our reference (the charge id) and a payment.
 * - A boleto may be paid late or for another amount: it is settled for what the provider says
 *   was paid (ledger: the paid amount; the fee scaled to it, never above it) and flagged on the
 *   charge (late, underpaid, overpaid). Boleto charges carry no splits (the application API
 *   creates none).
 * - Hybrid boleto: a payment by its Pix arrives as boleto.paid with via PIX and settles the same
 *   way (Pix payins account); the provider closes the barcode, and vice versa.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { accounts } from '../../core/ledger/accounts';
import { chargePaidEntry } from '../../core/ledger/postings';
import type { ProviderBoleto } from '../../core/provider';
import { chargeStore, presentChargeRow, type Charge, type PaymentAlertKind } from '../../db/charges';
import type { PaymentConfirmation } from '../../core/charges/paymentConfirmation';
import type { SettleOutcome } from '../../workflows/charges/types';
import { activityLog, recordAlert } from '../charges/alerts';
import type { ChargeDeps } from '../charges/deps';
import { writeLedgerEntry } from '../ledger/ledgerWriter';
import { recordEvent } from '../events/outbox';
import { boletosOf, getBoletoOrNull, retryable } from './boletoAtProvider';

type BoletoPayment = NonNullable<ProviderBoleto['payment']>;

/** Settles a boleto charge on the provider's record (see the module comment). */
export async function settleBoleto(
  deps: Pick<ChargeDeps, 'sequelize' | 'boletos' | 'accounts' | 'platformInstitution'>,
  charge: Charge,
  claim: PaymentConfirmation,
): Promise<SettleOutcome> {
  // A boleto is paid once at most (the provider closes the other way): nothing to compare.
  if (charge.status === 'PAID') return 'ALREADY_PAID';
  let boleto: ProviderBoleto | null;
  try {
    // Asked of the account the boleto was issued at (a connected merchant's own, or the platform's).
    const at = boletosOf(deps, await deps.accounts.forConnection(charge.pspConnectionId ?? null));
    boleto = await getBoletoOrNull(at, charge.providerChargeId as string);
  } catch (err) {
    throw retryable(err);
  }
  const problem = boletoProblem(charge, boleto);
  if (problem) {
    activityLog('error', `boleto payment not credited: ${problem.message}`, {
      chargeId: charge.id,
      kind: problem.kind,
    });
    await recordAlert(
      deps.sequelize,
      charge.id,
      problem.kind,
      null,
      boleto?.payment?.amountCents ?? claim.amountCents,
      {
        message: problem.message,
        providerStatus: boleto?.status ?? null,
        claimedAmountCents: claim.amountCents,
      },
    );
    return problem.kind === 'NOT_CONFIRMED' ? 'NOT_CONFIRMED' : 'MISMATCH';
  }
  return creditBoletoPayment(deps, charge.id, (boleto as ProviderBoleto).payment as BoletoPayment);
}

/** The confirmed payment credited once, under the charge's row lock: ledger, row with its flags, charge.paid. */
async function creditBoletoPayment(
  deps: Pick<ChargeDeps, 'sequelize' | 'platformInstitution'>,
  chargeId: string,
  payment: BoletoPayment,
): Promise<SettleOutcome> {
  const { sequelize } = deps;
  return sequelize.transaction(async (transaction) => {
    const locked = await chargeStore.lockCharge(chargeId, transaction);
    if (!locked) throw ApplicationFailure.nonRetryable(`charge ${chargeId} not found`, 'ChargeNotFound');
    if (locked.status === 'PAID') return 'ALREADY_PAID' as const;
    const late = locked.status !== 'PENDING';
    // A connected merchant's boleto is paid whole into its own account (issue 37): the PSP takes no
    // share for the platform (Efí's marketplace repasses are not used), so the ledger, a mirror of
    // what the PSP did, records no fee either; its charge was created with fee 0 (boletoFeeCents),
    // and 0 here too keeps a charge created before its merchant connected in step with the PSP.
    const fee = locked.pspConnectionId ? 0 : boletoFee(locked.feeCents, locked.amountCents, payment.amountCents);
    await writeLedgerEntry(
      sequelize,
      chargePaidEntry({
        chargeId: locked.id,
        merchantId: locked.merchantId,
        amountCents: payment.amountCents,
        feeCents: fee,
        splits: [],
        payinsAccount: payment.via === 'PIX' ? accounts.pixPayins : accounts.boletoPayins,
      }),
      transaction,
    );
    await chargeStore.updateCharge(
      locked,
      {
        status: 'PAID',
        paidAt: new Date(payment.paidAt),
        endToEndId: payment.endToEndId,
        payerSnapshot: { ...payment.payer },
        paidAfterExpiry: late,
        boletoPaidAmountCents: payment.amountCents,
        boletoPaidFeeCents: fee,
        boletoPaidVia: payment.via,
        boletoLate: payment.late,
        boletoUnderpaid: payment.amountCents < payment.expectedAmountCents,
        boletoOverpaid: payment.amountCents > payment.expectedAmountCents,
      },
      transaction,
    );
    await recordEvent(
      {
        type: 'charge.paid',
        merchantId: locked.merchantId,
        aggregateType: 'charge',
        aggregateId: locked.id,
        payload: await presentChargeRow(locked, deps.platformInstitution, transaction),
      },
      transaction,
    );
    return 'SETTLED' as const;
  });
}

/**
 * The fee on what was paid: the charge's fee scaled by paid/face, rounded, never above the paid
 * amount (so the merchant's share is never negative). Paid in full: exactly the charge's fee.
 */
export function boletoFee(feeCents: number, faceCents: number, paidCents: number): number {
  if (paidCents === faceCents) return feeCents;
  return Math.min(paidCents, Math.round((feeCents * paidCents) / faceCents));
}

function boletoProblem(
  charge: Charge,
  boleto: ProviderBoleto | null,
): { kind: PaymentAlertKind; message: string } | null {
  if (!boleto) return { kind: 'NOT_CONFIRMED', message: `the provider has no boleto ${charge.providerChargeId}` };
  if (boleto.status !== 'PAID' || !boleto.payment)
    return { kind: 'NOT_CONFIRMED', message: `the provider says the boleto is ${boleto.status}` };
  if (boleto.reference !== charge.id)
    return { kind: 'REFERENCE_MISMATCH', message: `the provider's boleto carries reference ${boleto.reference}` };
  if (!Number.isSafeInteger(boleto.payment.amountCents) || boleto.payment.amountCents <= 0) {
    return { kind: 'AMOUNT_MISMATCH', message: `the provider reports a paid amount of ${boleto.payment.amountCents}` };
  }
  return null;
}
