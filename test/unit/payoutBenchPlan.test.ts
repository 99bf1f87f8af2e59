/** The payout bench's plan: which send concurrency the sweep picks, how items split at the API's cap, which routes run. */
import { bestConcurrency, type BaselineRate } from '../../scripts/lib/payoutBaselines';
import { batchParts } from '../../scripts/lib/payoutBatchRun';
import { payoutAdaptersFrom } from '../../scripts/lib/payoutBench';
import { LoadErrors } from '../../scripts/lib/loadFetch';

const rate = (concurrency: number, perS: number): BaselineRate => ({
  concurrency,
  sends: 2000,
  perS,
  errors: new LoadErrors(),
});

describe('payout bench plan', () => {
  it('picks the smallest concurrency within 5 % of the highest rate', () => {
    expect(bestConcurrency([rate(1, 60), rate(4, 300), rate(16, 310)])).toBe(4);
    expect(bestConcurrency([rate(1, 60), rate(4, 200), rate(16, 310)])).toBe(16);
    expect(bestConcurrency([rate(16, 100), rate(1, 99)])).toBe(1);
  });

  it('splits items into batches of at most 10,000 (MAX_BATCH_ITEMS)', () => {
    expect(batchParts(100_000)).toEqual(Array(10).fill(10_000));
    expect(batchParts(25_000)).toEqual([10_000, 10_000, 5_000]);
    expect(batchParts(200)).toEqual([200]);
  });

  it('reads BENCH_PAYOUT_ADAPTERS: both by default, a subset in order, anything else refused', () => {
    expect(payoutAdaptersFrom(undefined)).toEqual(['efi', 'sandbox']);
    expect(payoutAdaptersFrom('sandbox')).toEqual(['sandbox']);
    expect(payoutAdaptersFrom(' sandbox , efi ')).toEqual(['sandbox', 'efi']);
    expect(() => payoutAdaptersFrom('efi,v1')).toThrow(/BENCH_PAYOUT_ADAPTERS/);
  });
});
