/**
 * Boleto charges (method BOLETO): issue at the provider, store, settle, close. Built inside
 * createChargeActivities, which shares its record step and alert store.
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
import type { Sequelize } from 'sequelize';
import { isoDateInBrasilia } from '../../core/boletos/pdf/format';
import { accounts } from '../../core/ledger/accounts';
import { chargePaidEntry } from '../../core/ledger/postings';
import { qrCodePngBase64 } from '../../core/pix/qrPng';
import { ProviderError, type BoletoProvider, type ProviderBoleto } from '../../core/provider';
import { chargeStore, presentChargeRow, type Charge, type StoredPix } from '../../db/charges';
import { merchantStore } from '../../db/identity';
import {
  ChargeFailureTypes,
  type ChargeLifecycleInput,
  type CloseOutcome,
  type IssuedCharge,
  type SettleOutcome,
} from '../../workflows/charges/types';
import type { PaymentConfirmation } from '../../core/charges/paymentConfirmation';
import { boletoClaim } from '../../core/boletos/claim';
import { writeLedgerEntry } from '../ledger/ledgerWriter';
import { recordEvent } from '../events/outbox';

/** Charge columns a boleto fills at issue (migration 0015). */
export interface BoletoColumns {
  boletoProviderId: string;
  boletoBankCode: string;
  boletoNossoNumero: string;
  boletoBarcode: string;
  boletoDigitableLine: string;
  boletoDueDate: string;
  boletoFineBps: number;
  boletoInterestMonthlyBps: number;
  boletoGraceDays: number;
}

/** The provider's boleto without its QR image (re-rendered from the BR Code at record time). */
export type IssuedProviderBoleto = Omit<ProviderBoleto, 'pix'> & { pix: Omit<ProviderBoleto['pix'], 'qrCodeBase64'> };

type AlertKind = 'NOT_CONFIRMED' | 'AMOUNT_MISMATCH' | 'REFERENCE_MISMATCH' | 'NO_PROVIDER_RECORD';

export interface BoletoChargeDeps {
  sequelize: Sequelize;
  /** Absent when the provider client cannot do boletos: issuing then fails with a clear reason. */
  boletos: BoletoProvider | undefined;
  providerCallbackUrl: string;
  /** config.platformInstitutionName, as the charge.paid event shows it. */
  platformInstitution: string;
  recordCharge: (
    input: ChargeLifecycleInput,
    issuedAs: { pix: StoredPix; providerChargeId: string; pixTxid: string; boleto?: BoletoColumns },
  ) => Promise<void>;
  recordAlert: (
    chargeId: string,
    kind: AlertKind,
    endToEndId: string | null,
    amountCents: number | null,
    details: Record<string, unknown>,
  ) => Promise<void>;
  log: (level: 'warn' | 'error', message: string, attrs: Record<string, unknown>) => void;
}

export function createBoletoChargeActivities(deps: BoletoChargeDeps) {
  const { sequelize } = deps;

  function provider(): BoletoProvider {
    if (!deps.boletos)
      throw ApplicationFailure.nonRetryable(
        'the provider client does not issue boletos',
        ChargeFailureTypes.providerRejected,
      );
    return deps.boletos;
  }

  async function issueBoletoAtProvider(input: ChargeLifecycleInput): Promise<IssuedProviderBoleto> {
    if (!input.payer)
      throw ApplicationFailure.nonRetryable('a boleto needs a payer', ChargeFailureTypes.providerRejected);
    const merchantName = await merchantStore.merchantName(input.merchantId);
    const terms = input.boleto ?? { finePercentBps: 0, monthlyInterestBps: 0, graceDays: 0 };
    try {
      const boleto = await provider().issueBoleto({
        reference: input.chargeId,
        amountCents: input.amountCents,
        // The due date a Brazilian reads: expiresAt's calendar day in Brasília.
        dueDate: isoDateInBrasilia(new Date(input.expiresAt)),
        payer: { name: input.payer.name, document: input.payer.taxId, email: input.payer.email },
        fine: terms.finePercentBps > 0 ? { percentBps: terms.finePercentBps } : null,
        interest: terms.monthlyInterestBps > 0 ? { monthlyBps: terms.monthlyInterestBps } : null,
        graceDays: terms.graceDays,
        callbackUrl: deps.providerCallbackUrl,
        merchantName,
      });
      if (!boleto.pix?.copyPaste || !boleto.pix.txid) {
        throw ApplicationFailure.nonRetryable(
          'the provider answered a boleto without its Pix payload',
          ChargeFailureTypes.pixNotIssued,
        );
      }
      const { qrCodeBase64: _image, ...pix } = boleto.pix;
      return { ...boleto, pix };
    } catch (err) {
      if (err instanceof ProviderError) {
        if (err.transient) throw ApplicationFailure.retryable(err.message, ChargeFailureTypes.providerUnavailable);
        throw ApplicationFailure.nonRetryable(err.message, ChargeFailureTypes.providerRejected);
      }
      throw err;
    }
  }

  async function recordIssuedBoleto(args: {
    input: ChargeLifecycleInput;
    providerBoleto: IssuedProviderBoleto;
  }): Promise<IssuedCharge> {
    const { input, providerBoleto: b } = args;
    const pix = {
      qrCode: await qrCodePngBase64(b.pix.copyPaste),
      copyPaste: b.pix.copyPaste,
      expiresAt: input.expiresAt,
    };
    await deps.recordCharge(input, {
      pix,
      providerChargeId: b.id,
      pixTxid: b.pix.txid,
      boleto: {
        boletoProviderId: b.id,
        boletoBankCode: b.bankCode,
        boletoNossoNumero: b.nossoNumero,
        boletoBarcode: b.barcode,
        boletoDigitableLine: b.digitableLine,
        boletoDueDate: b.dueDate,
        boletoFineBps: b.fine?.percentBps ?? 0,
        boletoInterestMonthlyBps: b.interest?.monthlyBps ?? 0,
        boletoGraceDays: b.graceDays,
      },
    });
    return {
      chargeId: input.chargeId,
      providerChargeId: b.id,
      pixTxid: b.pix.txid,
      copyPaste: b.pix.copyPaste,
      expiresAt: input.expiresAt,
    };
  }

  /**
   * Cancels (baixa) the boleto and its Pix at the provider. A boleto paid meanwhile (409
   * BOLETO_NOT_CANCELLABLE) reports its payment, so the workflow settles it; a provider with no
   * record at all answers NO_RECORD, as for Pix charges.
   */
  async function closeProviderBoleto(args: { providerBoletoId: string; chargeId: string }): Promise<CloseOutcome> {
    try {
      let boleto = await getBoletoOrNull(args.providerBoletoId);
      boleto ??= await provider().findBoletoByReference(args.chargeId);
      if (!boleto) {
        deps.log('warn', 'the provider has no record of the boleto; closing it on our side', args);
        await deps.recordAlert(args.chargeId, 'NO_PROVIDER_RECORD', null, null, {
          providerBoletoId: args.providerBoletoId,
        });
        return { status: 'NO_RECORD', payment: null };
      }
      if (boleto.status === 'REGISTERED') boleto = await cancelOrPaid(boleto.id);
      return { status: boleto.status, payment: boleto.status === 'PAID' ? boletoClaim(boleto) : null };
    } catch (err) {
      throw retryable(err);
    }
  }

  async function closeOrphanProviderBoleto(args: { reference: string }): Promise<void> {
    try {
      const found = await provider().findBoletoByReference(args.reference);
      if (found && found.status === 'REGISTERED') await cancelOrPaid(found.id);
    } catch (err) {
      throw retryable(err);
    }
  }

  /** Settles a boleto charge on the provider's record (see the module comment). */
  async function settleBoleto(charge: Charge, claim: PaymentConfirmation): Promise<SettleOutcome> {
    // A boleto is paid once at most (the provider closes the other way): nothing to compare.
    if (charge.status === 'PAID') return 'ALREADY_PAID';
    let boleto: ProviderBoleto | null;
    try {
      boleto = await getBoletoOrNull(charge.providerChargeId as string);
    } catch (err) {
      throw retryable(err);
    }
    const problem = boletoProblem(charge, boleto);
    if (problem) {
      deps.log('error', `boleto payment not credited: ${problem.message}`, { chargeId: charge.id, kind: problem.kind });
      await deps.recordAlert(charge.id, problem.kind, null, boleto?.payment?.amountCents ?? claim.amountCents, {
        message: problem.message,
        providerStatus: boleto?.status ?? null,
        claimedAmountCents: claim.amountCents,
      });
      return problem.kind === 'NOT_CONFIRMED' ? 'NOT_CONFIRMED' : 'MISMATCH';
    }
    const payment = (boleto as ProviderBoleto).payment as NonNullable<ProviderBoleto['payment']>;

    return sequelize.transaction(async (transaction) => {
      const locked = await chargeStore.lockCharge(charge.id, transaction);
      if (!locked) throw ApplicationFailure.nonRetryable(`charge ${charge.id} not found`, 'ChargeNotFound');
      if (locked.status === 'PAID') return 'ALREADY_PAID' as const;
      const late = locked.status !== 'PENDING';
      const fee = boletoFee(locked.feeCents, locked.amountCents, payment.amountCents);
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

  /** Cancels; a boleto paid in the meantime is read back instead (its payment must be settled). */
  async function cancelOrPaid(providerBoletoId: string): Promise<ProviderBoleto> {
    try {
      return await provider().cancelBoleto(providerBoletoId);
    } catch (err) {
      if (err instanceof ProviderError && err.code === 'BOLETO_NOT_CANCELLABLE')
        return provider().getBoleto(providerBoletoId);
      throw err;
    }
  }

  async function getBoletoOrNull(providerBoletoId: string): Promise<ProviderBoleto | null> {
    try {
      return await provider().getBoleto(providerBoletoId);
    } catch (err) {
      if (err instanceof ProviderError && err.httpStatus === 404 && err.code === 'BOLETO_NOT_FOUND') return null;
      throw err;
    }
  }

  return { issueBoletoAtProvider, recordIssuedBoleto, closeProviderBoleto, closeOrphanProviderBoleto, settleBoleto };
}

/**
 * The fee on what was paid: the charge's fee scaled by paid/face, rounded, never above the paid
 * amount (so the merchant's share is never negative). Paid in full: exactly the charge's fee.
 */
export function boletoFee(feeCents: number, faceCents: number, paidCents: number): number {
  if (paidCents === faceCents) return feeCents;
  return Math.min(paidCents, Math.round((feeCents * paidCents) / faceCents));
}

function boletoProblem(charge: Charge, boleto: ProviderBoleto | null): { kind: AlertKind; message: string } | null {
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

function retryable(err: unknown): unknown {
  if (err instanceof ProviderError)
    return ApplicationFailure.retryable(err.message, ChargeFailureTypes.providerUnavailable);
  return err;
}
