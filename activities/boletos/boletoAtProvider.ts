/** The boleto provider as the boleto charge steps ask it: read, cancel, and its errors as their failures. */
import { ApplicationFailure } from '@temporalio/activity';
import { ProviderError, type BoletoProvider, type ProviderBoleto } from '../../core/provider';
import { ChargeFailureTypes } from '../../workflows/charges/types';
import type { ChargeDeps } from '../charges/deps';

/** The boleto provider; a provider client that cannot do boletos fails the step with a clear reason. */
export function boletoProvider(deps: Pick<ChargeDeps, 'boletos'>): BoletoProvider {
  if (!deps.boletos)
    throw ApplicationFailure.nonRetryable(
      'the provider client does not issue boletos',
      ChargeFailureTypes.providerRejected,
    );
  return deps.boletos;
}

export async function getBoletoOrNull(
  deps: Pick<ChargeDeps, 'boletos'>,
  providerBoletoId: string,
): Promise<ProviderBoleto | null> {
  try {
    return await boletoProvider(deps).getBoleto(providerBoletoId);
  } catch (err) {
    if (err instanceof ProviderError && err.httpStatus === 404 && err.code === 'BOLETO_NOT_FOUND') return null;
    throw err;
  }
}

/** Cancels; a boleto paid in the meantime is read back instead (its payment must be settled). */
export async function cancelOrPaid(
  deps: Pick<ChargeDeps, 'boletos'>,
  providerBoletoId: string,
): Promise<ProviderBoleto> {
  try {
    return await boletoProvider(deps).cancelBoleto(providerBoletoId);
  } catch (err) {
    if (err instanceof ProviderError && err.code === 'BOLETO_NOT_CANCELLABLE')
      return boletoProvider(deps).getBoleto(providerBoletoId);
    throw err;
  }
}

export function retryable(err: unknown): unknown {
  if (err instanceof ProviderError)
    return ApplicationFailure.retryable(err.message, ChargeFailureTypes.providerUnavailable);
  return err;
}
