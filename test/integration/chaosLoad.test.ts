/**
 * The chaos run's load (scripts/lib/chaos/load.ts) against an integration stack, with nothing
 * killed: about 30 s of every operation kind at a high rate with small payout batches, then stop.
 * Every kind must have run and succeeded at least once, no key may have answered two ids, the
 * good receiver must have verified every delivery, the 410 endpoint must end disabled, and the
 * ledger must balance. The CLI is the same functions in process (test/support/inProcessCli.ts).
 */
import {
  prepareLoad,
  seededRandom,
  startLoad,
  type LoadEvent,
  type LoadOptions,
  type OpKind,
} from '../../scripts/lib/chaos/load';
import { DEFAULT_WEIGHTS } from '../../scripts/lib/chaos/plan';
import type { LoadFixture } from '../../scripts/lib/chaos/fixture';
import { waitFor } from '../support/env';
import { inProcessCli } from '../support/inProcessCli';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { assertLedgerInvariant } from '../support/ledger';
import { appendTestLog } from '../support/testLogs';
import { faultSeed, withFaultSeed } from '../support/payouts';

// Generous: under a host at load average 25-30 the load took over 10 minutes to see every kind succeed.
jest.setTimeout(1_800_000);

const KINDS = Object.keys(DEFAULT_WEIGHTS) as OpKind[];
/** How long the load runs at least (then until every kind succeeded once). */
const RUN_MS = 30_000;

let stack: IntegrationStack;

beforeAll(async () => {
  stack = await startIntegrationStack({ webhookDispatcher: true });
});

afterAll(async () => {
  await stack?.stop();
});

function options(seed: number, events: LoadEvent[]): LoadOptions {
  return {
    random: seededRandom(seed),
    receiverHost: '127.0.0.1',
    ratePerSecond: 4,
    maxInFlight: 8,
    payoutItems: { min: 5, max: 20 },
    // Every kind as often as the others, and the keys probed often.
    weights: Object.fromEntries(KINDS.map((k) => [k, 1])),
    replayRate: 0.2,
    concurrentRate: 0.3,
    log: (e) => {
      events.push(e);
      // Every attempt, for a look after the run (no secrets: ops, keys, ids, statuses).
      appendTestLog('chaos-load-attempts.jsonl', JSON.stringify(e));
    },
  };
}

/** The settlements made and the withdrawal rows under them, for a look at any 503 the run saw. */
async function logSettlements(merchantId: string): Promise<void> {
  const [rows] = await stack.sequelize.query(
    `SELECT to_jsonb(s) AS settlement, w.status, w.failure_code, w.amount_cents FROM settlements s
     JOIN withdrawals w ON w.id = s.withdrawal_id WHERE s.merchant_id = :merchantId ORDER BY s.created_at`,
    { replacements: { merchantId } },
  );
  for (const row of rows) appendTestLog('chaos-load-settlements.jsonl', JSON.stringify(row));
}

function everyKindSucceeded(fixture: LoadFixture): boolean {
  return KINDS.every((k) => (fixture.stats.operations[k]?.succeeded ?? 0) >= 1);
}

test('the chaos load runs every operation kind against the stack and the stack keeps its books', async () => {
  const seed = faultSeed();
  await withFaultSeed(seed, async () => {
    const events: LoadEvent[] = [];
    const opts = options(seed, events);
    const target = {
      apiUrl: stack.apiUrl,
      sandboxUrl: stack.sandboxUrl,
      fetch: globalThis.fetch,
      cli: inProcessCli(stack),
    };
    const fixture = await prepareLoad(target, opts);
    const startedAt = Date.now();
    const running = startLoad(fixture, opts);
    await waitFor(
      async () => Date.now() - startedAt >= RUN_MS && everyKindSucceeded(fixture),
      'every operation kind to succeed once',
      1_200_000,
    );
    const summary = await running.stop();
    try {
      process.stdout.write(
        `chaos load (seed ${seed}): ${events.length} attempts\n${JSON.stringify(
          {
            operations: summary.operations,
            attempts: summary.attempts,
            idChecks: summary.idChecks,
            refusals: summary.refusals,
            webhooks: summary.webhooks,
            receivers: Object.fromEntries(
              Object.entries(summary.receivers).map(([kind, r]) => [
                kind,
                {
                  received: r.received,
                  duplicates: r.duplicates,
                  badSignatures: r.badSignatures,
                  unverifiable: r.unverifiable,
                },
              ]),
            ),
          },
          null,
          1,
        )}\n`,
      );
      expect(summary.errors).toEqual([]);
      for (const kind of KINDS) expect(summary.operations[kind].succeeded).toBeGreaterThanOrEqual(1);
      expect(summary.idMismatches).toEqual([]);
      expect(summary.idChecks.replays + summary.idChecks.concurrent).toBeGreaterThan(0);
      expect(summary.webhooks.received).toBeGreaterThan(0);
      expect(summary.webhooks.badSignatures).toBe(0);
      expect(summary.receivers.good.unverifiable).toBe(0);
      // The 410 receiver's endpoints: disabled by the gateway at its first answer.
      for (const m of [fixture.main, fixture.second]) {
        const webhook = await waitFor(async () => {
          const res = await fetch(`${stack.apiUrl}/sellers/webhooks/${m.webhooks.gone}`, {
            headers: { 'x-client-id': m.creds.clientId, 'x-client-secret': m.creds.clientSecret },
          });
          const body = (await res.json()) as { active?: boolean; disabledReason?: string };
          return body.active === false ? body : null;
        }, 'the 410 endpoint to be disabled');
        expect(webhook.disabledReason).toMatch(/410/);
      }
      await logSettlements(fixture.main.creds.merchantId);
      await assertLedgerInvariant(stack.sequelize);
    } finally {
      await summary.close();
    }
  });
});
