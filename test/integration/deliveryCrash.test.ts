/**
 * The worker that commits a charge.paid makes the delivery's first attempt itself, right after
 * the commit, under a lease written in that transaction. Here that worker process dies exactly
 * there: SIGKILL between the commit and the send (test/support/failpoints/killAfterEventCommit.cjs).
 * The delivery is not lost: once its lease expires, a new worker's dispatcher sweep starts its
 * workflow, and the receiver gets charge.paid exactly once, signed as always.
 */
import path from 'node:path';
import { QueryTypes } from 'sequelize';
import Stripe from 'stripe';
import { waitFor } from '../support/env';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { assertLedgerInvariant } from '../support/ledger';
import { startReceiver, type Receiver } from '../support/receiver';
import { killHard, spawnWorkerProcess, type WorkerProcess } from '../support/workerProcess';

jest.setTimeout(180_000);

let stack: IntegrationStack;
let receiver: Receiver;
const workers: WorkerProcess[] = [];
const stripe = new Stripe('sk_test_offline');
// Short, so the sweep takes over within seconds (production: 30 s).
const LEASE_SECONDS = '2';

beforeAll(async () => {
  stack = await startIntegrationStack({ inProcessWorker: false });
  receiver = await startReceiver();
});

afterAll(async () => {
  for (const w of workers) await killHard(w);
  await stack?.stop();
  await receiver?.close();
});

it('a worker killed between the commit and the first attempt loses nothing: the sweep delivers once', async () => {
  const seller = await stack.createMerchant({ name: 'Loja Queda' });
  const endpoint = await stack.api('POST', '/sellers/webhooks', {
    creds: seller,
    body: { url: `${receiver.url}/crash`, events: ['charge.paid'] },
  });
  expect(endpoint.status).toBe(201);

  const doomed = spawnWorkerProcess(
    { ...stack.workerEnv, WEBHOOK_FIRST_ATTEMPT_LEASE_SECONDS: LEASE_SECONDS },
    { preload: path.join(__dirname, '..', 'support', 'failpoints', 'killAfterEventCommit.cjs') },
  );
  workers.push(doomed);
  const created = await stack.api('POST', '/sellers/pix', { creds: seller, body: { amountCents: 3_000 } });
  expect(created.status).toBe(201);
  const chargeId = created.body.id as string;
  expect((await stack.pay(chargeId)).status).toBeLessThan(300);

  // The settle transaction committed (event and leased delivery), then the process died.
  await new Promise<void>((resolve) =>
    doomed.exitCode !== null || doomed.signalCode ? resolve() : doomed.once('exit', () => resolve()),
  );
  expect(doomed.signalCode).toBe('SIGKILL');
  const [leased] = await stack.sequelize.query<{ id: string; status: string; attempts: number; leased: boolean }>(
    `SELECT d.id, d.status, d.attempts, d.lease_expires_at IS NOT NULL AS leased
     FROM webhook_deliveries d JOIN outbox_events o ON o.id = d.event_id WHERE o.aggregate_id = :chargeId AND o.type = 'charge.paid'`,
    { replacements: { chargeId }, type: QueryTypes.SELECT },
  );
  expect(leased).toMatchObject({ status: 'PENDING', attempts: 0, leased: true });
  expect(receiver.received.filter((r) => r.path === '/crash')).toHaveLength(0);

  workers.push(spawnWorkerProcess({ ...stack.workerEnv, WEBHOOK_FIRST_ATTEMPT_LEASE_SECONDS: LEASE_SECONDS }));
  await waitFor(
    async () => receiver.received.some((r) => r.path === '/crash'),
    'charge.paid delivered by the sweep',
    90_000,
  );
  await waitFor(
    async () => (await stack.api('GET', `/sellers/pix/${chargeId}`, { creds: seller })).body.status === 'PAID',
    'the charge paid (the settle activity retried on the new worker)',
    90_000,
  );
  // Give a duplicate the time to show up if there were one.
  await new Promise((r) => setTimeout(r, 1_500));
  const got = receiver.received.filter((r) => r.path === '/crash');
  expect(got).toHaveLength(1);
  const event = stripe.webhooks.constructEvent(
    got[0].rawBody,
    String(got[0].headers['gateway-signature']),
    endpoint.body.secret as string,
  ) as unknown as { type: string; data: { id: string } };
  expect(event).toMatchObject({ type: 'charge.paid', data: { id: chargeId } });
  const [row] = await stack.sequelize.query<{ status: string; attempts: number; workflow_started: boolean }>(
    `SELECT status, attempts, workflow_started FROM webhook_deliveries WHERE id = :id`,
    { replacements: { id: leased.id }, type: QueryTypes.SELECT },
  );
  expect(row).toEqual({ status: 'SUCCEEDED', attempts: 1, workflow_started: true });
  await assertLedgerInvariant(stack.sequelize);
});
