/**
 * The load's seeded decisions: every choice (which operation, how much, whether to replay a key)
 * is drawn from one seeded generator at dispatch time, so the same seed gives the same sequence
 * of decisions whatever the stack's timing. Keys and passwords never come from here.
 */
import { seededRandom } from '../../../sandbox/seededRandom';

export { seededRandom };

/** A whole number in [min, max], drawn from `random`. */
export function intBetween(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/** True with probability `p`. */
export function chance(random: () => number, p: number): boolean {
  return random() < p;
}

/** One key of `weights`, drawn in proportion to its weight (keys of weight 0 never). */
export function weightedPick<K extends string>(random: () => number, weights: Record<K, number>): K {
  const entries = (Object.entries(weights) as [K, number][]).filter(([, w]) => w > 0);
  const total = entries.reduce((s, [, w]) => s + w, 0);
  let r = random() * total;
  for (const [key, w] of entries) {
    r -= w;
    if (r < 0) return key;
  }
  return entries[entries.length - 1][0];
}
