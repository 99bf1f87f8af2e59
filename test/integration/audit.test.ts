/**
 * `gateway audit` against the real stack: after real money scenarios (a paid charge with a
 * webhook endpoint, a withdrawal, a payout batch, a refund) it is clean and exits 0; on a fresh
 * database of planted faults each check names its row and the command exits 1. A stack of its
 * own: its database, sandbox and task queue hold only what these tests made, so "quiet" and
 * "clean" are about them alone.
 */
import crypto from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';
import { providerFrom, type ConfiguredProvider } from '../../activities/provider/providerFrom';
import { writeLedgerEntry } from '../../activities/ledger/ledgerWriter';
import { loadConfig } from '../../config';
import { chargePaidEntry, movements, reserve } from '../../core/ledger/postings';
import { idEnvioFor } from '../../core/pix/apiPixIds';
import { createSequelize } from '../../db/sequelize';
import { formatAudit, runAudit, type AuditCheck, type AuditReport } from '../../cli/audit';
import { outboxDispatcherWorkflow } from '../../workflows/events/definitions';
import { testEnv, waitFor } from '../support/env';
import { freshDatabase, startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { BUILD_WAIT_MS, builtOperatorCli, type OperatorCli } from '../support/operatorCli';
import { fundByPaidCharge, items, payoutMerchant, signedCall, waitForBatchEnd } from '../support/payouts';
import { startReceiver, type Receiver } from '../support/receiver';
import { signedInMerchant } from '../support/signedIn';
import { testLogger } from '../support/testLogs';

jest.setTimeout(180_000);

let stack: IntegrationStack;
let cli: OperatorCli;
let receiver: Receiver;
let psp: ConfiguredProvider;

beforeAll(async () => {
  stack = await startIntegrationStack({ webhookDispatcher: true });
  receiver = await startReceiver();
  psp = providerFrom(loadConfig({ ...process.env, NODE_ENV: 'test', ...stack.workerEnv }), testLogger('audit-test'));
  cli = await builtOperatorCli();
}, BUILD_WAIT_MS);

afterAll(async () => {
  await psp?.close();
  await receiver?.close();
  await stack?.stop();
});

const key = (prefix: string) => ({ 'x-idempotency-key': `${prefix}-${crypto.randomUUID()}` });
const cliEnv = () => ({ ...stack.workerEnv, NODE_ENV: 'test' });
const checkOf = (report: AuditReport, name: string): AuditCheck => report.checks.find((c) => c.check === name)!;
const rowsOf = (check: AuditCheck) => check.discrepancies.map((d) => d.row);

/** Quiet: every event dispatched, no delivery pending, no run of the stack's queue open but the dispatcher. */
async function waitUntilQuiet(): Promise<void> {
  await waitFor(async () => {
    const [busy] = await stack.sequelize.query<{ n: string }>(
      `SELECT (SELECT count(*) FROM outbox_events WHERE dispatched_at IS NULL)
            + (SELECT count(*) FROM webhook_deliveries WHERE status = 'PENDING') AS n`,
      { type: QueryTypes.SELECT },
    );
    if (Number(busy.n) > 0) return false;
    for await (const run of stack.temporal.workflow.list({
      query: `TaskQueue = '${stack.taskQueue}' AND ExecutionStatus = 'Running'`,
    }))
      if (run.type !== outboxDispatcherWorkflow.name) return false;
    return true;
  }, 'the stack to be quiet');
}

describe('after real money scenarios', () => {
  it('is clean: a paid charge delivered to its webhook endpoint, a withdrawal, a payout batch, a refund (exit 0)', async () => {
    const pixKey = `financeiro+${crypto.randomUUID().slice(0, 8)}@loja-auditoria.com.br`;
    const seller = await stack.createMerchant({
      name: 'Loja Auditoria',
      document: '11144477735',
      pixKey,
      pixKeyType: 'EMAIL',
    });
    const endpoint = await stack.api('POST', '/sellers/webhooks', {
      creds: seller,
      body: { url: `${receiver.url}/hooks`, events: ['charge.paid'] },
    });
    expect(endpoint.status).toBe(201);
    await fundByPaidCharge(stack, seller, 50_000);

    const withdrawal = await stack.api('POST', '/sellers/saques', {
      creds: seller,
      body: { amountCents: 10_000 },
      headers: key('saque'),
    });
    expect(withdrawal.status).toBe(201);
    await waitFor(async () => {
      const res = await stack.api('GET', `/sellers/saques/${withdrawal.body.id}`, { creds: seller });
      return res.body?.status === 'COMPLETED';
    }, 'the withdrawal COMPLETED');

    const payer = await payoutMerchant(stack, { name: 'Pagadora Auditoria' });
    await fundByPaidCharge(stack, payer, 20_000);
    const batch = await signedCall(stack, payer, 'POST', '/v1/payouts/batches', {
      idempotencyKey: `lote-${crypto.randomUUID()}`,
      items: items(3, { amountCents: 1_500 }),
    });
    expect(batch.status).toBe(201);
    expect((await waitForBatchEnd(stack, payer, batch.body.batchId)).status).toBe('COMPLETED');

    const owner = await signedInMerchant(stack, { emailPrefix: 'audit', name: 'Loja Reembolso Auditoria' });
    const charge = await owner.client.call('POST', '/charges', {
      body: { merchantId: owner.merchantId, amountCents: 8_000 },
      headers: key('charge'),
    });
    expect(charge.status).toBe(201);
    await stack.pay(charge.body.id);
    await waitFor(
      async () => (await owner.client.call('GET', `/charges/${charge.body.id}`)).body.status === 'PAID',
      'the charge to refund PAID',
    );
    const refund = await owner.client.call('POST', `/charges/${charge.body.id}/refund`, {
      body: { reason: 'auditoria' },
      headers: key('refund'),
    });
    expect(refund.status).toBe(200);
    await waitFor(async () => {
      const shown = (await owner.client.call('GET', `/charges/${charge.body.id}`)).body;
      return shown.refunds?.[0]?.status === 'SUCCEEDED';
    }, 'the refund SUCCEEDED');

    await waitUntilQuiet();
    const report = await runAudit(
      { sequelize: stack.sequelize, provider: psp.provider, temporal: stack.temporal },
      { taskQueue: stack.taskQueue, sandbox: { url: stack.sandboxUrl } },
    );
    // A discrepancy here is a finding: the report names its rows.
    expect(report.checks.flatMap((c) => c.discrepancies)).toEqual([]);
    expect(report.clean).toBe(true);
    expect(checkOf(report, 'charges').examined).toBeGreaterThanOrEqual(3);
    expect(checkOf(report, 'transfers').examined).toBeGreaterThanOrEqual(5 * 2);

    const out = await cli.run(['audit', '--sandbox-url', stack.sandboxUrl], cliEnv());
    expect(out).toMatchObject({ status: 0 });
    expect(out.stdout).toMatch(/^check\s+examined\s+discrepancies$/m);
    expect(out.stdout).toMatch(/^ledger\s+\d+\s+0$/m);
    expect(out.stdout).toContain('audit: clean');
    const json = await cli.run(['audit', '--json'], cliEnv());
    expect(json).toMatchObject({ status: 0 });
    expect(JSON.parse(json.stdout)).toMatchObject({ clean: true });
  });

  it('answers 2 on a usage error', async () => {
    const out = await cli.run(['audit', '--since', 'last tuesday'], cliEnv());
    expect(out.status).toBe(2);
    expect(out.stderr).toContain('not an ISO time');
  });
});

describe('planted discrepancies, on a fresh database', () => {
  let db: Sequelize;
  let dbUrl: string;
  const probeQueue = `audit-probe-${crypto.randomUUID()}`;
  const stuckId = `audit-stuck-${crypto.randomUUID()}`;
  const terminatedId = `audit-terminated-${crypto.randomUUID()}`;

  beforeAll(async () => {
    dbUrl = await freshDatabase(testEnv().databaseUrl, testEnv().templateDatabase);
    db = createSequelize(dbUrl, { poolMax: 4 });
  });

  afterAll(async () => {
    await stack.temporal.workflow
      .getHandle(stuckId)
      .terminate('test: audit probe done')
      .catch(() => undefined);
    await db?.close();
  });

  it('names each planted row in its check, and the command exits 1', async () => {
    const since = new Date(Date.now() - 1_000);
    const merchantId = crypto.randomUUID();
    await db.query(`INSERT INTO merchants (id, name) VALUES (:merchantId, 'Loja Plantada')`, {
      replacements: { merchantId },
    });

    // A charge credited twice: a second CHARGE_PAID transaction under another key (the first key is unique).
    const chargeId = crypto.randomUUID();
    await db.query(
      `INSERT INTO charges (id, merchant_id, amount_cents, status, expires_at, paid_at)
       VALUES (:chargeId, :merchantId, 10000, 'PAID', now() + interval '1 hour', now())`,
      { replacements: { chargeId, merchantId } },
    );
    const credit = chargePaidEntry({ chargeId, merchantId, amountCents: 10_000, feeCents: 0, splits: [] });
    await db.transaction(async (t) => {
      await writeLedgerEntry(db, credit, t);
      await writeLedgerEntry(db, { ...credit, movementKey: `${credit.movementKey}:again` }, t);
    });

    // A withdrawal left PROCESSING with its reserve.
    const withdrawalId = crypto.randomUUID();
    await db.transaction(async (t) => {
      await db.query(
        `INSERT INTO withdrawals (id, merchant_id, amount_cents, fee_cents, total_debited_cents, status)
         VALUES (:withdrawalId, :merchantId, 2000, 0, 2000, 'PROCESSING')`,
        { replacements: { withdrawalId, merchantId }, transaction: t },
      );
      await writeLedgerEntry(
        db,
        reserve(movements.withdrawal(withdrawalId).reserve, [{ merchantId, cents: 2_000 }]),
        t,
      );
    });

    // A payout item shown FAILED (its reserve released) whose send the provider holds.
    const batchId = crypto.randomUUID();
    const itemId = crypto.randomUUID();
    await db.query(
      `INSERT INTO payout_batches (id, merchant_id, idempotency_key, status, items_count, total_amount_cents, total_fee_cents)
       VALUES (:batchId, :merchantId, 'plantado', 'COMPLETED_WITH_FAILURES', 1, 1500, 0);
       INSERT INTO payout_items (id, batch_id, merchant_id, row_index, status, amount_cents, fee_cents, pix_key, pix_key_type, recipient_name)
       VALUES (:itemId, :batchId, :merchantId, 0, 'FAILED', 1500, 0, 'recebedor@example.com', 'EMAIL', 'Recebedor')`,
      { replacements: { batchId, itemId, merchantId } },
    );
    const config = loadConfig({ ...process.env, NODE_ENV: 'test', ...stack.workerEnv });
    await psp.efi!.send(idEnvioFor(itemId), {
      valor: '15.00',
      pagador: { chave: config.pixTransfers.senderKey },
      favorecido: { chave: 'recebedor@example.com' },
    });
    await waitFor(
      async () => (await psp.efi!.sent(idEnvioFor(itemId)))?.status === 'REALIZADO',
      'the planted send made',
    );

    // An event never dispatched.
    const eventId = crypto.randomUUID();
    await db.query(
      `INSERT INTO outbox_events (id, dedup_key, merchant_id, type, aggregate_type, aggregate_id, payload)
       VALUES (:eventId, :dedup, :merchantId, 'charge.paid', 'charge', :chargeId, '{}')`,
      { replacements: { eventId, dedup: `charge.paid:${chargeId}`, merchantId, chargeId } },
    );

    // An unbalanced posting, written past the balance trigger (as only a direct write could).
    const unbalancedId = crypto.randomUUID();
    await db.transaction(async (t) => {
      await db.query(`SET LOCAL session_replication_role = replica`, { transaction: t });
      await db.query(
        `INSERT INTO ledger_transactions (id, movement_key, kind, reference_type, reference_id)
         VALUES (:unbalancedId, :key, 'PLANTED', 'test', 'audit');
         INSERT INTO ledger_postings (transaction_id, account_id, amount_cents)
         SELECT :unbalancedId, id, 7 FROM ledger_accounts WHERE code = 'platform:fees' OR code = 'external:pix_payins' LIMIT 1`,
        { replacements: { unbalancedId, key: `planted:${unbalancedId}` }, transaction: t },
      );
    });

    // A run stuck on a queue nobody serves, and one terminated.
    await stack.temporal.workflow.start('auditProbe', { taskQueue: probeQueue, workflowId: stuckId, args: [] });
    await stack.temporal.workflow.start('auditProbe', { taskQueue: probeQueue, workflowId: terminatedId, args: [] });
    await stack.temporal.workflow.getHandle(terminatedId).terminate('test: a planted terminated run');
    await waitFor(async () => {
      for await (const run of stack.temporal.workflow.list({
        query: `TaskQueue = '${probeQueue}' AND ExecutionStatus = 'Terminated'`,
      }))
        if (run.workflowId === terminatedId) return true;
      return false;
    }, 'the terminated run visible');
    await waitFor(async () => {
      for await (const run of stack.temporal.workflow.list({
        query: `TaskQueue = '${probeQueue}' AND ExecutionStatus = 'Running'`,
      }))
        if (run.workflowId === stuckId) return true;
      return false;
    }, 'the stuck run visible');

    const report = await runAudit(
      { sequelize: db, provider: psp.provider, temporal: stack.temporal },
      { since, taskQueue: probeQueue, staleAfterMs: 0 },
    );
    expect(report.clean).toBe(false);
    expect(rowsOf(checkOf(report, 'charges'))).toEqual([`charge:${chargeId}`]);
    expect(rowsOf(checkOf(report, 'webhooks'))).toEqual([`outbox_event:${eventId}`]);
    expect(rowsOf(checkOf(report, 'transfers'))).toEqual([`payout_item:${itemId}`]);
    expect(checkOf(report, 'transfers').discrepancies[0].problem).toMatch(/FAILED .*but the provider sent it/);
    expect(rowsOf(checkOf(report, 'reservations'))).toEqual([`withdrawal:${withdrawalId}`]);
    expect(rowsOf(checkOf(report, 'workflows')).sort()).toEqual(
      [`workflow:${stuckId}`, `workflow:${terminatedId}`].sort(),
    );
    expect(rowsOf(checkOf(report, 'ledger'))).toContain(`ledger_transaction:${unbalancedId}`);
    const text = formatAudit(report);
    for (const id of [chargeId, eventId, itemId, withdrawalId, unbalancedId, stuckId, terminatedId])
      expect(text).toContain(id);

    const out = await cli.run(['audit', '--since', since.toISOString(), '--stale-minutes', '0'], {
      ...cliEnv(),
      DATABASE_URL: dbUrl,
      TEMPORAL_TASK_QUEUE: probeQueue,
    });
    expect(out.status).toBe(1);
    for (const id of [chargeId, eventId, itemId, withdrawalId, unbalancedId, stuckId, terminatedId])
      expect(out.stdout).toContain(id);
  });
});
