/**
 * The sandbox's Pix Automático "today" is the calendar date in Brasília, as the gateway's
 * (core/subscriptions/issueWindow.ts brasiliaDate) and the BCB's: read in UTC, it was the next day
 * from 21:00 in Brasília, and a rec the gateway dated today was refused as starting in the past
 * (the suite's subscription tests failed every night from 00:00 to 03:00 UTC).
 */
import type { SandboxContext } from '../../sandbox/context';
import { today } from '../../sandbox/pixApi/recs';

const at = (iso: string) => ({ now: () => new Date(iso) }) as unknown as SandboxContext;

it("is Brasília's calendar date, also between 00:00 and 03:00 UTC", () => {
  expect(today(at('2026-12-03T01:00:00Z'))).toBe('2026-12-02');
  expect(today(at('2026-12-03T02:59:59Z'))).toBe('2026-12-02');
  expect(today(at('2026-12-03T03:00:00Z'))).toBe('2026-12-03');
  expect(today(at('2026-12-02T15:00:00Z'))).toBe('2026-12-02');
});
