/** The dashboard bench's data set shape (scripts/lib/dashboardData.ts): merchants of Zipf sizes, summing exactly. */
import { medianRank, merchantSizes } from '../../scripts/lib/dashboardData';

describe('merchantSizes', () => {
  it('spreads 10,000,000 charges over 1,000 merchants: the largest ~1.3 million, the median a few thousand, the total exact', () => {
    const sizes = merchantSizes(10_000_000, 1_000);
    expect(sizes).toHaveLength(1_000);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(10_000_000);
    expect(sizes[0]).toBeGreaterThan(1_000_000);
    expect(sizes[0]).toBeLessThan(1_500_000);
    const median = sizes[medianRank(1_000)];
    expect(median).toBeGreaterThan(2_000);
    expect(median).toBeLessThan(5_000);
    for (let k = 1; k < sizes.length; k++) expect(sizes[k]).toBeLessThanOrEqual(sizes[k - 1]);
  });

  it('gives every merchant at least one charge, however few there are', () => {
    const sizes = merchantSizes(10, 8);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(10);
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(1);
  });
});
