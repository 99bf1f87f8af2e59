/**
 * The rules a new charge is issued under, whichever API asks (seller routes, the application
 * API, checkouts, boleto batches). Pure: the HTTP answer to a request that breaks them is the
 * API's (api/charges/issueCharge.ts).
 */
import { computeFee, type FeeSchedule } from '../money';

/** Lifetime bounds of a charge: at least a minute, at most this many days. */
export const MAX_CHARGE_TTL_DAYS = 30;

/** The expiry a create request asks for (or the default); null when it is outside the bounds. */
export function chargeExpiry(requested: string | undefined, now: Date, defaultTtlSeconds: number): Date | null {
  const expiresAt = requested ? new Date(requested) : new Date(now.getTime() + defaultTtlSeconds * 1000);
  if (
    expiresAt.getTime() < now.getTime() + 60_000 ||
    expiresAt.getTime() > now.getTime() + MAX_CHARGE_TTL_DAYS * 86_400_000
  )
    return null;
  return expiresAt;
}

/**
 * The platform fee recorded on a charge the PSP pays whole into its account, dividing nothing (a
 * boleto, a Pix Automático cycle charge: neither can carry Efí's Split Pix, which links cobs): on
 * the platform's account the merchant's fee (`platformFeeCents`), taken by the ledger; on a
 * connected merchant's own account none, since the fee could reach the platform only through the
 * platform's account, and the ledger mirrors what the PSP did (docs/account-models.md).
 */
export function undividedChargeFee(connectionId: string | null, platformFeeCents: number): number {
  return connectionId === null ? platformFeeCents : 0;
}

/** The platform fee on a charge: the merchant's own schedule, else the default. */
export function chargeFee(
  merchant: { pixFeeBps: number | null; pixFeeFixedCents: number | null },
  defaultFee: FeeSchedule,
  amountCents: number,
): number {
  return computeFee(amountCents, {
    bps: merchant.pixFeeBps ?? defaultFee.bps,
    fixedCents: merchant.pixFeeFixedCents ?? defaultFee.fixedCents,
  });
}
