/** Issuing a boleto charge: the hybrid boleto (barcode and Pix) at the provider, then the charge recorded. */
import { ApplicationFailure } from '@temporalio/activity';
import { isoDateInBrasilia } from '../../core/boletos/pdf/format';
import { qrCodePngBase64 } from '../../core/pix/qrPng';
import { ProviderError, type ProviderBoleto } from '../../core/provider';
import { merchantStore } from '../../db/identity';
import { ChargeFailureTypes, type ChargeLifecycleInput, type IssuedCharge } from '../../workflows/charges/types';
import type { ChargeDeps } from '../charges/deps';
import { recordCharge } from '../charges/record';
import { boletoProvider, boletosOf } from './boletoAtProvider';

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

/**
 * The provider's boleto without its QR image (re-rendered from the BR Code at record time), and
 * the merchant's connection it was issued on (null or absent: the platform's account).
 */
export type IssuedProviderBoleto = Omit<ProviderBoleto, 'pix'> & {
  pix: Omit<ProviderBoleto['pix'], 'qrCodeBase64'>;
  pspConnectionId?: string | null;
};

/**
 * Issues the boleto at the merchant's account (issue 37): its own connection's (Efí's API
 * Cobranças, paid into its account) in the connected model, the platform's otherwise.
 */
export async function issueBoletoAtProvider(
  deps: Pick<ChargeDeps, 'boletos' | 'providerCallbackUrl' | 'accounts'>,
  input: ChargeLifecycleInput,
): Promise<IssuedProviderBoleto> {
  if (!input.payer)
    throw ApplicationFailure.nonRetryable('a boleto needs a payer', ChargeFailureTypes.providerRejected);
  const merchantName = await merchantStore.merchantName(input.merchantId);
  const terms = input.boleto ?? { finePercentBps: 0, monthlyInterestBps: 0, graceDays: 0 };
  try {
    const account = await deps.accounts.forMerchant(input.merchantId);
    const boleto = await boletoProvider(boletosOf(deps, account)).issueBoleto({
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
    return { ...boleto, pix, pspConnectionId: account.connectionId };
  } catch (err) {
    if (err instanceof ProviderError) {
      if (err.transient) throw ApplicationFailure.retryable(err.message, ChargeFailureTypes.providerUnavailable);
      throw ApplicationFailure.nonRetryable(err.message, ChargeFailureTypes.providerRejected);
    }
    throw err;
  }
}

export async function recordIssuedBoleto(
  deps: ChargeDeps,
  args: { input: ChargeLifecycleInput; providerBoleto: IssuedProviderBoleto },
): Promise<IssuedCharge> {
  const { input, providerBoleto: b } = args;
  const pix = {
    qrCode: await qrCodePngBase64(b.pix.copyPaste),
    copyPaste: b.pix.copyPaste,
    expiresAt: input.expiresAt,
  };
  await recordCharge(deps, input, {
    pix,
    providerChargeId: b.id,
    pixTxid: b.pix.txid,
    pspConnectionId: b.pspConnectionId ?? null,
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
