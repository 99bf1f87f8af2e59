/** The host probe (scripts/lib/hostProbe.ts): its lines, a window's median, the adjusted ratio, and its child's life. */
import {
  hostAdjusted,
  hostSpeedNote,
  medianCpuMs,
  parseProbeLine,
  PROBE_SLICE,
  startHostProbe,
} from '../../scripts/lib/hostProbe';
import { waitFor } from '../support/env';
import { processAlive } from '../support/processAlive';

describe('host probe', () => {
  it('names its slice as the bench prints it', () => {
    expect(PROBE_SLICE).toBe('20,000 chained sha256 of 32 B');
  });

  it('reads "<epoch ms> <cpu ms>" lines and nothing else', () => {
    expect(parseProbeLine('1796305449561 31.52\n')).toEqual({ at: 1796305449561, cpuMs: 31.52 });
    expect(parseProbeLine('')).toBeUndefined();
    expect(parseProbeLine('Error: boom')).toBeUndefined();
    expect(parseProbeLine('1796305449561 0')).toBeUndefined();
  });

  it("takes a window's median of the slices that ended inside it, both ends included", () => {
    const samples = [10, 20, 30, 40, 50].map((at, i) => ({ at, cpuMs: [9, 3, 7, 5, 100][i] }));
    expect(medianCpuMs(samples, 10, 40)).toBe(6); // 9, 3, 7, 5 → (5 + 7) / 2
    expect(medianCpuMs(samples, 20, 50)).toBe(6); // 3, 7, 5, 100 → (5 + 7) / 2: one slow slice does not move it
    expect(medianCpuMs(samples, 15, 45)).toBe(5); // 3, 7, 5
    expect(medianCpuMs(samples, 51, 60)).toBeUndefined();
  });

  it("takes the host's speed out of a ratio: slower slices in the second window bring it down", () => {
    expect(hostAdjusted(11.29, 30, 33)).toBeCloseTo(10.26, 2);
    expect(hostAdjusted(9, 33, 30)).toBeCloseTo(9.9, 5);
    expect(hostAdjusted(9, undefined, 30)).toBeUndefined();
    expect(hostSpeedNote(11.29, 30, 33)).toBe("host slice 30.0 → 33.0 ms: 10.26 with the host's speed taken out");
    expect(hostSpeedNote(11.29, 30, undefined)).toBe('the host probe gave no figure for a window');
  });

  it('gives a figure for a window it ran through, and its child is gone once stopped', async () => {
    const probe = startHostProbe(100);
    const from = Date.now();
    const pid = probe.pid!;
    try {
      const median = await waitFor(async () => probe.medianBetween(from, Date.now()), 'a probe slice', 20_000);
      expect(median).toBeGreaterThan(0);
    } finally {
      probe.stop();
    }
    await waitFor(async () => !processAlive(pid), 'the probe child to end', 10_000);
  });
});
