/**
 * The boleto provider as the boleto charge steps ask it: read, cancel, and its errors as their
 * failures. A boleto is issued, read and cancelled at ONE account (issue 37): the platform's
 * (the worker's boleto provider, ChargeDeps.boletos), or the merchant's own connection
 * (PspAccount.boletos: Efí's API Cobranças), recorded on the charge as psp_connection_id like a
 * Pix charge's, so everything after the issue asks the account the money was paid into.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { ProviderError, type BoletoProvider, type ProviderBoleto, type PspAccount } from '../../core/provider';
import { chargeStore } from '../../db/charges';
import { ChargeFailureTypes } from '../../workflows/charges/types';
import type { ChargeDeps } from '../charges/deps';

/** Where a boleto step speaks: one account's boleto provider. */
export interface BoletoAt {
  boletos: BoletoProvider | undefined;
}

/** The boleto provider; a provider client that cannot do boletos fails the step with a clear reason. */
export function boletoProvider(at: BoletoAt): BoletoProvider {
  if (!at.boletos)
    throw ApplicationFailure.nonRetryable(
      'the provider client does not issue boletos',
      ChargeFailureTypes.providerRejected,
    );
  return at.boletos;
}

/** The boletos of an account: a connected one's own, the platform's the worker's provider. */
export function boletosOf(deps: Pick<ChargeDeps, 'boletos'>, account: PspAccount): BoletoAt {
  return { boletos: account.connectionId === null ? deps.boletos : account.boletos };
}

/** The account a boleto charge was issued at (its row's), or, never recorded, its merchant's (as close.ts). */
export async function boletoAccountOf(
  deps: Pick<ChargeDeps, 'sequelize' | 'accounts' | 'boletos'>,
  chargeId: string,
): Promise<BoletoAt> {
  const where = await chargeStore.chargeAccountOf(deps.sequelize, chargeId);
  const account = !where
    ? await deps.accounts.forConnection(null)
    : where.issued
      ? await deps.accounts.forConnection(where.pspConnectionId)
      : await deps.accounts.forMerchant(where.merchantId);
  return boletosOf(deps, account);
}

export async function getBoletoOrNull(at: BoletoAt, providerBoletoId: string): Promise<ProviderBoleto | null> {
  try {
    return await boletoProvider(at).getBoleto(providerBoletoId);
  } catch (err) {
    if (err instanceof ProviderError && err.httpStatus === 404 && err.code === 'BOLETO_NOT_FOUND') return null;
    throw err;
  }
}

/** Cancels; a boleto paid in the meantime is read back instead (its payment must be settled). */
export async function cancelOrPaid(at: BoletoAt, providerBoletoId: string): Promise<ProviderBoleto> {
  try {
    return await boletoProvider(at).cancelBoleto(providerBoletoId);
  } catch (err) {
    if (err instanceof ProviderError && err.code === 'BOLETO_NOT_CANCELLABLE')
      return boletoProvider(at).getBoleto(providerBoletoId);
    throw err;
  }
}

export function retryable(err: unknown): unknown {
  if (err instanceof ProviderError)
    return ApplicationFailure.retryable(err.message, ChargeFailureTypes.providerUnavailable);
  return err;
}
