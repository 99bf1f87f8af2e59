/** Closing a Pix charge: at the provider (which may report a payment that beat the close), then on our side. */
import type { ProviderCharge } from '../../core/provider';
import { chargeStore, presentChargeRow } from '../../db/charges';
import type { PaymentConfirmation } from '../../core/charges/paymentConfirmation';
import type { CloseOutcome } from '../../workflows/charges/types';
import { recordEvent } from '../events/outbox';
import { activityLog, recordAlert } from './alerts';
import type { ChargeDeps } from './deps';
import { getChargeOrNull, isNoRecord, toRetryable } from './providerErrors';

/**
 * Closes the charge at the provider; reports a payment if one beat the close. A provider that
 * has no record of the charge (lost state, wrong environment) is asked what it knows; with no
 * record at all the answer is NO_RECORD, so the workflow expires the charge instead of failing.
 */
export async function closeProviderCharge(
  deps: Pick<ChargeDeps, 'sequelize' | 'provider'>,
  args: { providerChargeId: string; reason: 'EXPIRED' | 'CANCELLED'; chargeId?: string },
): Promise<CloseOutcome> {
  const { provider } = deps;
  try {
    const closed = await provider.closeCharge(args.providerChargeId, args.reason);
    return { status: closed.status, payment: closed.status === 'PAID' ? paymentFrom(closed) : null };
  } catch (err) {
    if (!isNoRecord(err)) throw toRetryable(err);
  }
  try {
    const found =
      (await getChargeOrNull(provider, args.providerChargeId)) ??
      (args.chargeId ? await provider.findChargeByReference(args.chargeId) : null);
    if (found) {
      const closed = found.status === 'ACTIVE' ? await provider.closeCharge(found.id, args.reason) : found;
      return { status: closed.status, payment: closed.status === 'PAID' ? paymentFrom(closed) : null };
    }
  } catch (err) {
    throw toRetryable(err);
  }
  activityLog('warn', 'the provider has no record of the charge; closing it on our side', {
    chargeId: args.chargeId,
    providerChargeId: args.providerChargeId,
  });
  if (args.chargeId)
    await recordAlert(deps.sequelize, args.chargeId, 'NO_PROVIDER_RECORD', null, null, {
      providerChargeId: args.providerChargeId,
    });
  return { status: 'NO_RECORD', payment: null };
}

export async function closeOrphanProviderCharge(
  deps: Pick<ChargeDeps, 'provider'>,
  args: { reference: string },
): Promise<void> {
  try {
    const found = await deps.provider.findChargeByReference(args.reference);
    if (found && found.status === 'ACTIVE') await deps.provider.closeCharge(found.id, 'CANCELLED');
  } catch (err) {
    throw toRetryable(err);
  }
}

export async function finalizeUnpaidCharge(
  deps: Pick<ChargeDeps, 'sequelize' | 'checkouts' | 'platformInstitution'>,
  args: { chargeId: string; status: 'EXPIRED' | 'CANCELLED'; reason: string | null },
): Promise<void> {
  await deps.sequelize.transaction(async (transaction) => {
    const charge = await chargeStore.lockCharge(args.chargeId, transaction);
    if (!charge || charge.status !== 'PENDING') return;
    const now = new Date();
    await chargeStore.updateCharge(
      charge,
      args.status === 'EXPIRED' ? { status: 'EXPIRED', expiredAt: now } : { status: 'CANCELLED', cancelledAt: now },
      transaction,
    );
    const type = args.status === 'EXPIRED' ? 'charge.expired' : 'charge.cancelled';
    await recordEvent(
      {
        type,
        merchantId: charge.merchantId,
        aggregateType: 'charge',
        aggregateId: charge.id,
        payload: await presentChargeRow(charge, deps.platformInstitution, transaction),
      },
      transaction,
    );
    await deps.checkouts.closed({ chargeId: charge.id, status: args.status }, transaction);
  });
}

function paymentFrom(charge: ProviderCharge): PaymentConfirmation {
  return {
    providerChargeId: charge.id,
    endToEndId: charge.endToEndId as string,
    amountCents: charge.amountCents,
    paidAt: charge.paidAt as string,
    payer: charge.payer,
  };
}
