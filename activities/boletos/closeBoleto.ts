import { boletoClaim } from '../../core/boletos/claim';
import type { CloseOutcome } from '../../workflows/charges/types';
import { activityLog, recordAlert } from '../charges/alerts';
import type { ChargeDeps } from '../charges/deps';
import { boletoAccountOf, boletoProvider, cancelOrPaid, getBoletoOrNull, retryable } from './boletoAtProvider';

/**
 * Cancels (baixa) the boleto and its Pix at the provider. A boleto paid meanwhile (409
 * BOLETO_NOT_CANCELLABLE) reports its payment, so the workflow settles it; a provider with no
 * record at all answers NO_RECORD, as for Pix charges.
 */
export async function closeProviderBoleto(
  deps: Pick<ChargeDeps, 'sequelize' | 'boletos' | 'accounts'>,
  args: { providerBoletoId: string; chargeId: string },
): Promise<CloseOutcome> {
  try {
    // The account the boleto was issued at: a connected merchant's own (issue 37), or the platform's.
    const at = await boletoAccountOf(deps, args.chargeId);
    let boleto = await getBoletoOrNull(at, args.providerBoletoId);
    boleto ??= await boletoProvider(at).findBoletoByReference(args.chargeId);
    if (!boleto) {
      activityLog('warn', 'the provider has no record of the boleto; closing it on our side', args);
      await recordAlert(deps.sequelize, args.chargeId, 'NO_PROVIDER_RECORD', null, null, {
        providerBoletoId: args.providerBoletoId,
      });
      return { status: 'NO_RECORD', payment: null };
    }
    if (boleto.status === 'REGISTERED') boleto = await cancelOrPaid(at, boleto.id);
    return { status: boleto.status, payment: boleto.status === 'PAID' ? boletoClaim(boleto) : null };
  } catch (err) {
    throw retryable(err);
  }
}

export async function closeOrphanProviderBoleto(
  deps: Pick<ChargeDeps, 'sequelize' | 'boletos' | 'accounts'>,
  args: { reference: string },
): Promise<void> {
  try {
    const at = await boletoAccountOf(deps, args.reference);
    const found = await boletoProvider(at).findBoletoByReference(args.reference);
    if (found && found.status === 'REGISTERED') await cancelOrPaid(at, found.id);
  } catch (err) {
    throw retryable(err);
  }
}
