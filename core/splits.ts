/**
 * Split allocation. A split names a receiving merchant and either a fixed `amountCents` or a
 * `percentage` of the charge amount (0.01 to 100, two decimals). Percentages round down to the
 * cent; the rounding remainder stays with the charge owner. The owner pays the platform fee, so
 * the shares may take at most amount − fee: the owner's net is never negative.
 */
import { assertCents } from './money';

export interface SplitRequest {
  merchantId: string;
  amountCents?: number;
  percentage?: number;
}

export interface SplitAllocation {
  merchantId: string;
  amountCents: number;
  percentage: number;
}

export type SplitProblem = { index: number; field: string; message: string };

export function allocateSplits(
  amountCents: number,
  feeCents: number,
  splits: SplitRequest[],
): { ok: true; allocations: SplitAllocation[]; ownerNetCents: number } | { ok: false; problems: SplitProblem[] } {
  assertCents(amountCents);
  const problems: SplitProblem[] = [];
  const allocations: SplitAllocation[] = [];
  splits.forEach((split, index) => {
    const hasAmount = split.amountCents !== undefined;
    const hasPct = split.percentage !== undefined;
    if (hasAmount === hasPct) {
      problems.push({ index, field: 'amountCents', message: 'give exactly one of amountCents or percentage' });
      return;
    }
    let share: number;
    if (hasAmount) {
      share = split.amountCents as number;
    } else {
      const basisPoints = Math.round((split.percentage as number) * 100);
      share = Math.floor((amountCents * basisPoints) / 10_000);
    }
    if (share < 1) {
      problems.push({
        index,
        field: hasAmount ? 'amountCents' : 'percentage',
        message: 'split share must be at least 1 cent',
      });
      return;
    }
    allocations.push({
      merchantId: split.merchantId,
      amountCents: share,
      percentage: hasPct ? (split.percentage as number) : Math.round((share * 10_000) / amountCents) / 100,
    });
  });
  if (problems.length > 0) return { ok: false, problems };
  const shares = allocations.reduce((sum, a) => sum + a.amountCents, 0);
  const ownerNetCents = amountCents - feeCents - shares;
  if (ownerNetCents < 0) {
    return {
      ok: false,
      problems: [
        {
          index: -1,
          field: 'splits',
          message: `split shares (${shares}) exceed the amount after fees (${amountCents - feeCents})`,
        },
      ],
    };
  }
  return { ok: true, allocations, ownerNetCents };
}
