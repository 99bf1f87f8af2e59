/**
 * The chaos run's fault schedule (scripts/lib/chaos/schedule.ts): drawn from the seed alone, so
 * CHAOS_SEED replays the same faults in the same order; every round kills every target once and
 * pauses one worker.
 */
import { faultSchedule, type ScheduleOptions } from '../../scripts/lib/chaos/schedule';
import { seededRandom } from '../../sandbox/seededRandom';

const options = (seed: number): ScheduleOptions => ({
  random: seededRandom(seed),
  killTargets: ['api', 'worker-1', 'worker-2', 'sandbox', 'temporal', 'postgres'],
  pauseTargets: ['worker-1', 'worker-2'],
  rounds: 3,
  gapMs: { min: 10_000, max: 25_000 },
  warmUpMs: 30_000,
  pauseMs: 30_000,
});

it('is the same for the same seed, and differs for another', () => {
  expect(faultSchedule(options(42))).toEqual(faultSchedule(options(42)));
  expect(faultSchedule(options(42)).map((f) => f.target)).not.toEqual(faultSchedule(options(43)).map((f) => f.target));
});

it('kills every target once per round and pauses one worker per round, gaps within bounds', () => {
  const faults = faultSchedule(options(7));
  expect(faults).toHaveLength(3 * 7);
  for (let round = 0; round < 3; round++) {
    const mine = faults.slice(round * 7, round * 7 + 7);
    expect(
      mine
        .filter((f) => f.action === 'kill')
        .map((f) => f.target)
        .sort(),
    ).toEqual(['api', 'postgres', 'sandbox', 'temporal', 'worker-1', 'worker-2']);
    const pauses = mine.filter((f) => f.action === 'pause');
    expect(pauses).toHaveLength(1);
    expect(['worker-1', 'worker-2']).toContain(pauses[0].target);
    expect(pauses[0].pauseMs).toBe(30_000);
  }
  expect(faults[0].gapMs).toBe(30_000);
  for (const f of faults.slice(1)) {
    expect(f.gapMs).toBeGreaterThanOrEqual(10_000);
    expect(f.gapMs).toBeLessThanOrEqual(25_000);
  }
  expect(faults.map((f) => f.n)).toEqual(faults.map((_, i) => i + 1));
});
