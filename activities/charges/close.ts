/** Closing a Pix charge: at the provider (which may report a payment that beat the close), then on our side. */
import { chargeIdOfTxid } from '../../core/pix/apiPixIds';
import type { PixProvider, ProviderCharge, PspAccount } from '../../core/provider';
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
  deps: Pick<ChargeDeps, 'sequelize' | 'accounts'>,
  args: { providerChargeId: string; reason: 'EXPIRED' | 'CANCELLED'; chargeId?: string },
): Promise<CloseOutcome> {
  // Assigned before the first await that can throw a no-record: the catch below only passes those on.
  let provider: PixProvider | null = null;
  try {
    const chargeId = args.chargeId ?? chargeIdOfTxid(args.providerChargeId);
    ({ provider } = chargeId ? await chargeAccount(deps, chargeId) : await deps.accounts.forConnection(null));
    const closed = await provider.closeCharge(args.providerChargeId, args.reason);
    return { status: closed.status, payment: closed.status === 'PAID' ? paymentFrom(closed) : null };
  } catch (err) {
    if (!isNoRecord(err)) throw toRetryable(err);
  }
  return closeWithoutRecord(deps, provider as PixProvider, args);
}

/** The provider had no cob by that id: what it knows of our reference decides. */
async function closeWithoutRecord(
  deps: Pick<ChargeDeps, 'sequelize'>,
  provider: PixProvider,
  args: { providerChargeId: string; reason: 'EXPIRED' | 'CANCELLED'; chargeId?: string },
): Promise<CloseOutcome> {
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
  deps: Pick<ChargeDeps, 'sequelize' | 'accounts'>,
  args: { reference: string },
): Promise<void> {
  try {
    const { provider } = await chargeAccount(deps, args.reference);
    const found = await provider.findChargeByReference(args.reference);
    if (found && found.status === 'ACTIVE') await provider.closeCharge(found.id, 'CANCELLED');
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

/** The account a charge id was issued at (its row's), or, never recorded, its merchant's. */
async function chargeAccount(deps: Pick<ChargeDeps, 'sequelize' | 'accounts'>, chargeId: string): Promise<PspAccount> {
  const where = await chargeStore.chargeAccountOf(deps.sequelize, chargeId);
  if (!where) return deps.accounts.forConnection(null);
  return where.issued
    ? deps.accounts.forConnection(where.pspConnectionId)
    : deps.accounts.forMerchant(where.merchantId);
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
