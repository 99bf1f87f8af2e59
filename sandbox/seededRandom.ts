/**
 * A small seeded generator (mulberry32) for the sandbox's fault draws: a test that sets faults
 * with a seed gets the same sequence of draws every run, and prints the seed when it fails, so a
 * failure can be replayed. Not for anything secret: ids and keys use crypto.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
