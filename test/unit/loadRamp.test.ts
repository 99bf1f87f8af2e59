/**
 * The webhook part's ramp (scripts/lib/loadRamp.ts): which step holds, where the ramp stops, and
 * the knee, judged the same for ours and the floor.
 */
import { judge, ramp, type RampStep } from '../../scripts/lib/loadRamp';

const good = {
  rate: 20,
  asked: 600,
  sent: 600,
  delivered: 600,
  offered: 20,
  deliveredPerS: 19.8,
  p50: 40,
  p99: 120,
  cpuMs: 30,
  errors: 0,
};

describe('judge', () => {
  it('holds when all is delivered at ≥ 98 % of the offered rate, p99 < 250 ms, the load reached, no error', () => {
    expect(judge(good)).toMatchObject({ held: true, why: '' });
  });

  it.each([
    [{ delivered: 599 }, '1 of 600 undelivered'],
    [{ deliveredPerS: 19.5 }, 'delivered 19.5/s < 98 % of 20.0/s offered'],
    [{ p99: 250 }, 'p99 250 ms ≥ 250'],
    [{ errors: 2 }, '2 load errors'],
    [{ offered: 18.9 }, 'offered 18.9/s of 20/s'],
    [{ sent: 590, delivered: 590 }, '10 of 600 not sent'],
  ])('does not hold with %o', (change, why) => {
    const step = judge({ ...good, ...change });
    expect(step.held).toBe(false);
    expect(step.why).toContain(why);
  });
});

describe('ramp', () => {
  const stepAt = (holdsUpTo: number) => async (rate: number) =>
    judge({ ...good, rate, offered: rate, deliveredPerS: rate, p99: rate <= holdsUpTo ? 100 : 900 });

  it('stops after the first step that does not hold; the knee is the highest rate that held', async () => {
    const r = await ramp([5, 10, 20, 40, 80], stepAt(20));
    expect(r.steps.map((s: RampStep) => [s.rate, s.held])).toEqual([
      [5, true],
      [10, true],
      [20, true],
      [40, false],
    ]);
    expect(r.knee).toBe(20);
  });

  it('has a knee of 0 when the first step does not hold', async () => {
    const r = await ramp([5, 10], stepAt(0));
    expect(r.steps).toHaveLength(1);
    expect(r.knee).toBe(0);
  });
});
