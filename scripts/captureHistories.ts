/**
 * `npm run capture-histories [-- --suffix <label>] [-- --only <scenario>]`
 *
 * Runs every workflow type of the gateway on a real Temporal dev server with the real worker
 * (the same stack as the integration tests: embedded PostgreSQL, the sandbox provider over HTTP,
 * the API) through happy, cancel and failure paths, and writes each run's event history as JSON
 * to test/replay/histories/<workflowType>/<scenario>[.<suffix>].json (History.toObject plus the
 * run's workflowId). test/replay/replay.test.ts
 * replays them all against the current workflow code: a change that would break a running
 * workflow fails `npm test`.
 *
 * When to run it: after adding a workflow or a new behaviour (with patched()), to add histories
 * of the new code. Never to "fix" a replay failure: that failure is the point (see
 * docs/architecture.md, "Workflow history: changing a workflow safely"). Use --suffix to add histories next to the old ones instead of
 * replacing them. Takes about a minute; output is quiet (logs go to a temporary directory).
 */
import type { dailyReconciliation } from '../workflows/reconciliations/daily';
import { reconciliationWorkflowId } from '../workflows/reconciliations/types';
import type { scheduledSettlement } from '../workflows/settlements/scheduledSettlement';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import { QueryTypes } from 'sequelize';
import { prepareDatabase } from './lib/database';
import { freePort } from './lib/ports';
import { startTemporalDevServer } from './lib/temporalDevServer';
import { ensureTools } from './lib/tools';
import { projectRoot } from '../cli/lib/projectRoot';
import { runMigrations } from '../db/migrator';
import { createSequelize } from '../db/sequelize';
import { BoletoBatch, BoletoBatchItem, Charge } from '../db/models';
import { acceptBoletoBatchUpdate, boletoBatchWorkflow, boletoBatchWorkflowId } from '../workflows/boletos/definitions';
import type { MerchantCredentials } from '../db/identity/merchantAdmin';
import { chargeWorkflowId, latePaymentWorkflowId } from '../workflows/charges/definitions';
import { dispatcherWorkflowId, deliveryWorkflowId, replayWorkflowId } from '../workflows/events/definitions';
import { withdrawalWorkflowId } from '../workflows/withdrawals/definitions';
import { splitSendWorkflowId } from '../workflows/splitSends/definitions';
import { splitSendIdFor } from '../core/splitSends/splitSendId';
import { executeWorkflow } from '../core/temporal/workflows';
import { sentPixNoticeWorkflow, sentPixNoticeWorkflowId } from '../workflows/transfers/definitions';
import { idEnvioFor } from '../core/pix/apiPixIds';
import { payoutBatchWorkflowId } from '../workflows/payouts/definitions';
import { mailWorkflowId } from '../workflows/mail/definitions';
import { Mailer } from '../api/mail/mailer';
import { updateWithStartOrJoin } from '../core/temporal/updateWithStart';
import { decideInfractionUpdate, medInfractionWorkflowId } from '../workflows/med/definitions';
import type { medInfractionSync } from '../workflows/med/medInfractionSync';
import type { pixPaymentSweep } from '../workflows/charges/sweep/pixPaymentSweep';
import type { pspBalanceReading } from '../workflows/connections/balanceReading';
import { PIX_SWEEP_LOOKBACK_MS } from '../workflows/charges/sweep/definitions';
import { pspChargeRef } from '../core/pix/apiPixIds';
import { refundLifecycleWorkflow, refundWorkflowId, requestRefundUpdate } from '../workflows/refunds/definitions';
import type { MadeSandboxAccount } from '../test/support/sandboxAccounts';
import type { IntegrationStack } from '../test/support/integrationStack';
import { captureSubscriptionRuns } from './lib/subscriptionCapture';

const historiesDir = path.join(projectRoot, 'test', 'replay', 'histories');
/** A scenario's workflows must close within this; a stuck one is terminated and its history kept (a partial history replays too). */
const SCENARIO_TIMEOUT_MS = 45_000;
/** Task queues of scenarios whose runs have a worker of their own (stand-in activities): their histories are written too. */
const ownTaskQueues: string[] = [];

interface Scenario {
  name: string;
  /** Needs the sandbox to itself (sets faults): run alone, after the others. */
  exclusive?: boolean;
  /** Mostly waits (a charge's one-minute minimum expiry): the exclusive scenarios run meanwhile. */
  long?: boolean;
  /** Runs the scenario; returns the ids of the workflow runs it made, by prefix (chunks share their batch's prefix). */
  run: (stack: IntegrationStack) => Promise<string[]>;
}

function log(msg: string): void {
  process.stdout.write(`[capture] ${msg}\n`);
}

function key(): string {
  return crypto.randomUUID();
}

async function waitClosed(handle: WorkflowHandle, timeoutMs = SCENARIO_TIMEOUT_MS): Promise<void> {
  const closed = handle.result().then(
    () => true,
    (err: unknown) => {
      if (err instanceof WorkflowFailedError) return true; // failed or cancelled: a history like any other
      throw err;
    },
  );
  const timer = new Promise<false>((r) => setTimeout(() => r(false), timeoutMs).unref());
  if (!(await Promise.race([closed, timer]))) {
    log(`  ${handle.workflowId} still open after ${timeoutMs} ms: terminating, keeping the partial history`);
    await handle.terminate('capture-histories: scenario timed out').catch(() => undefined);
  }
}

async function must<T extends { status: number; body: any }>(
  what: string,
  expected: number,
  res: Promise<T>,
): Promise<T> {
  const r = await res;
  if (r.status !== expected)
    throw new Error(`${what}: expected ${expected}, got ${r.status} ${JSON.stringify(r.body)}`);
  return r;
}

async function setFaults(
  stack: IntegrationStack,
  faults: { errorRate?: number; latencyMs?: number } | null,
): Promise<void> {
  await fetch(`${stack.sandboxUrl}/sandbox/faults`, {
    method: faults ? 'POST' : 'DELETE',
    headers: { 'content-type': 'application/json' },
    body: faults ? JSON.stringify(faults) : undefined,
  });
}

/** A withdrawal of R$ 10.00 to `pixKey`, its run closed; its id. */
async function withdrawalRun(stack: IntegrationStack, pixKey: string): Promise<string> {
  const m = await withdrawingMerchant(stack, pixKey);
  const w = await must(
    'withdraw',
    201,
    stack.api('POST', '/sellers/saques', {
      creds: m,
      body: { amountCents: 1_000 },
      headers: { 'idempotency-key': key() },
    }),
  );
  await waitClosed(stack.temporal.workflow.getHandle(withdrawalWorkflowId(w.body.id)));
  return w.body.id;
}

async function withdrawingMerchant(stack: IntegrationStack, pixKey: string): Promise<MerchantCredentials> {
  const { fundByPaidCharge } = await import('../test/support/payouts');
  const m = await stack.createMerchant({
    name: 'Loja Historico',
    payoutsEnabled: true,
    document: '11144477735',
    pixKeyType: 'EMAIL',
    pixKey,
  });
  await fundByPaidCharge(stack, m, 100_000);
  return m;
}

async function newCharge(stack: IntegrationStack, m: MerchantCredentials, apiUrl?: string): Promise<string> {
  if (!apiUrl)
    return (
      await must('create charge', 201, stack.api('POST', '/sellers/pix', { creds: m, body: { amountCents: 1_500 } }))
    ).body.id;
  const res = await fetch(`${apiUrl}/sellers/pix`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-client-id': m.clientId, 'x-client-secret': m.clientSecret },
    body: JSON.stringify({ amountCents: 1_500 }),
  });
  const body = (await res.json()) as { id: string };
  if (res.status !== 201) throw new Error(`create charge: ${res.status} ${JSON.stringify(body)}`);
  return body.id;
}

/** A BOLETO charge of the application API (a signed-in owner; boletos are not on the seller routes). */
async function newBoletoCharge(
  stack: IntegrationStack,
): Promise<{ id: string; client: import('../test/support/appClient').AppClient }> {
  const { AppClient, uniqueEmail } = await import('../test/support/appClient');
  const client = new AppClient(stack.apiUrl);
  const email = uniqueEmail('history');
  await client.register({ email, password: 'correct horse battery' });
  await client.login(email, 'correct horse battery');
  const merchant = await client.call('POST', '/dashboard/merchant/ensure', {
    body: { name: 'Loja Boleto', document: '11.222.333/0001-81', type: 'PRODUCER' },
  });
  if (!merchant.body?.id) throw new Error(`ensure merchant: ${merchant.status} ${JSON.stringify(merchant.body)}`);
  const body = {
    merchantId: merchant.body.id,
    amountCents: 10_000,
    method: 'BOLETO',
    payer: { name: 'Bia Souza', taxId: '529.982.247-25' },
    boleto: { finePercentBps: 200, monthlyInterestBps: 100 },
  };
  const created = await must(
    'create boleto charge',
    201,
    client.call('POST', '/charges', { body, headers: { 'x-idempotency-key': key() } }),
  );
  return { id: created.body.id, client };
}

/**
 * A merchant connected to a new sandbox account of its own through the operator's CLI, with the
 * account's own client certificate (the sandbox refuses another's for its credentials); `origin`:
 * where its PSP is reached (another origin of the same sandbox is another PSP to the gateway);
 * `webhook`: its notification URL registered at the PSP too.
 */
async function connectedMerchant(
  stack: IntegrationStack,
  name: string,
  opts: { origin?: string; webhook?: boolean } = {},
): Promise<{ merchant: MerchantCredentials; account: MadeSandboxAccount }> {
  const { connectionCli } = await import('../test/support/inProcessCli');
  const { testCertificates } = await import('../test/support/testCertificates');
  const { makeSandboxAccount } = await import('../test/support/sandboxAccounts');
  const pki = await testCertificates();
  const origin = opts.origin ?? stack.pixApiUrl;
  const account = await makeSandboxAccount(stack.sandboxUrl, { name: name.toUpperCase() });
  const m = await stack.createMerchant({ name, document: account.cnpj });
  const secretFile = path.join(os.tmpdir(), `capture-secret-${key()}`);
  fs.writeFileSync(secretFile, account.clientSecret, { mode: 0o600 });
  const cli = connectionCli(stack);
  try {
    await cli([
      'register', '--merchant', m.merchantId, '--psp', 'efi',
      '--api-base-url', `${origin}/api/v2`, '--token-url', `${origin}/oauth/token`,
      '--client-id', account.clientId, '--client-secret-file', secretFile, '--pix-key', account.key,
      '--account-number', account.conta,
      '--cert-file', account.certFile, '--key-file', account.keyFile, '--ca-file', pki.caFile,
    ]); // prettier-ignore
    if (opts.webhook) await cli(['webhook', '--merchant', m.merchantId]);
  } finally {
    fs.rmSync(secretFile, { force: true });
  }
  return { merchant: m, account };
}

/** Registers the merchant's webhook for charge.paid at `url`. */
function chargePaidHook(stack: IntegrationStack, m: MerchantCredentials, url: string) {
  return must(
    'webhook',
    201,
    stack.api('POST', '/sellers/webhooks', { creds: m, body: { url, events: ['charge.paid'] } }),
  );
}

/**
 * A merchant's webhook for charge.paid on a local receiver that answers its first request with
 * `first`, then 200: the charge is paid, the first attempt fails, and every delivery's workflow
 * is waited for. Answers the charge's and the deliveries' workflow ids.
 */
async function chargePaidAfterAFailedAttempt(
  stack: IntegrationStack,
  merchantName: string,
  first: { status: number; headers?: Record<string, string> },
): Promise<string[]> {
  const { startReceiver } = await import('../test/support/receiver');
  const receiver = await startReceiver();
  try {
    const m = await stack.createMerchant({ name: merchantName });
    const hook = await chargePaidHook(stack, m, `${receiver.url}/hook`);
    receiver.status = first.status;
    receiver.headers = first.headers ?? {};
    const id = await newCharge(stack, m);
    await stack.pay(id);
    const deadline = Date.now() + 20_000;
    while (receiver.received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    receiver.status = 200;
    receiver.headers = {};
    const list = await stack.api('GET', `/sellers/webhooks/${hook.body.id}/deliveries`, { creds: m });
    const ids = (list.body.deliveries as Array<{ id: string }>).map((d) => deliveryWorkflowId(d.id));
    for (const wid of ids) await waitClosed(stack.temporal.workflow.getHandle(wid));
    return [chargeWorkflowId(id), ...ids];
  } finally {
    await receiver.close();
  }
}

const scenarios: Scenario[] = [
  {
    // Stand-in activities until activities/subscriptions exists (scripts/lib/subscriptionCapture.ts).
    name: 'subscription-lifecycle',
    async run(stack) {
      const { taskQueue, workflowIds } = await captureSubscriptionRuns(
        stack.temporal,
        process.env.TEMPORAL_ADDRESS as string,
        (handle) => waitClosed(handle),
      );
      ownTaskQueues.push(taskQueue);
      return workflowIds;
    },
  },
  {
    // A paid charge refunded twice: 1,000 returned (SUCCEEDED), then 13 cents refused by the
    // sandbox (an amount ending in 13 cents) and released (FAILED).
    name: 'refunds',
    async run(stack) {
      const m = await stack.createMerchant({ name: 'Loja Reembolsa' });
      const id = await newCharge(stack, m);
      await stack.pay(id);
      await waitClosed(stack.temporal.workflow.getHandle(chargeWorkflowId(id)));
      const made: string[] = [];
      for (const amountCents of [1_000, 13]) {
        const refundId = crypto.randomUUID();
        await updateWithStartOrJoin(stack.temporal, refundLifecycleWorkflow, requestRefundUpdate, {
          workflowId: refundWorkflowId(refundId),
          taskQueue: stack.taskQueue,
          args: [
            {
              refundId,
              chargeId: id,
              amountCents,
              reason: 'capture-histories',
              idempotencyKey: null,
              requestedBy: null,
            },
          ],
          merchantId: m.merchantId,
          initialStatus: 'RESERVING',
        });
        await waitClosed(stack.temporal.workflow.getHandle(refundWorkflowId(refundId)));
        made.push(refundWorkflowId(refundId));
      }
      return made;
    },
  },
  {
    // Three stored rows, one cancelled before the run starts: two boletos issued (each its own
    // ChargeLifecycle, left PENDING: not captured here), the batch COMPLETED.
    name: 'boleto-batch-completed',
    async run(stack) {
      const m = await stack.createMerchant({ name: 'Loja Boletos' });
      const batchId = crypto.randomUUID();
      const dueDate = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
      await BoletoBatch.create({
        id: batchId,
        merchantId: m.merchantId,
        idempotencyKey: key(),
        status: 'PROCESSING',
        itemsCount: 3,
        fineBps: 0,
        interestMonthlyBps: 0,
        graceDays: 0,
      });
      await BoletoBatchItem.bulkCreate(
        [0, 1, 2].map((rowIndex) => ({
          id: crypto.randomUUID(),
          batchId,
          rowIndex,
          status: rowIndex === 2 ? ('CANCELLED' as const) : ('PENDING' as const),
          amountCents: 1_000 + rowIndex,
          feeCents: 10,
          dueDate,
          payerName: 'Bia Souza',
          payerTaxId: '52998224725',
          payerEmail: null,
          description: null,
          externalRef: null,
        })),
      );
      await updateWithStartOrJoin(stack.temporal, boletoBatchWorkflow, acceptBoletoBatchUpdate, {
        workflowId: boletoBatchWorkflowId(batchId),
        taskQueue: stack.taskQueue,
        args: [{ batchId, merchantId: m.merchantId, itemsCount: 3, concurrency: 2 }],
        merchantId: m.merchantId,
        initialStatus: 'ACCEPTING',
      });
      await waitClosed(stack.temporal.workflow.getHandle(boletoBatchWorkflowId(batchId)));
      return [boletoBatchWorkflowId(batchId)];
    },
  },
  {
    // Paid late and short by barcode: settled for what was paid.
    name: 'boleto-paid-late-underpaid',
    async run(stack) {
      const { id } = await newBoletoCharge(stack);
      const lateDay = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
      const paid = await fetch(`${stack.sandboxUrl}/sandbox/boletos/${id}/pay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ paidAt: lateDay, amountCents: 9_000 }),
      });
      if (paid.status !== 200) throw new Error(`pay boleto: ${paid.status} ${await paid.text()}`);
      await waitClosed(stack.temporal.workflow.getHandle(chargeWorkflowId(id)));
      return [chargeWorkflowId(id)];
    },
  },
  {
    // Cancelled by the merchant: the boleto is cancelled (baixa) at the provider.
    name: 'boleto-cancelled',
    async run(stack) {
      const { id, client } = await newBoletoCharge(stack);
      await must('cancel boleto charge', 200, client.call('POST', `/charges/${id}/cancel`, { body: {} }));
      await waitClosed(stack.temporal.workflow.getHandle(chargeWorkflowId(id)));
      return [chargeWorkflowId(id)];
    },
  },
  {
    // A merchant's own PSP connection (a new sandbox account), tested and its webhook registered
    // through the worker, as POST /dashboard/connection/test and …/webhook do.
    name: 'psp-connection-test-and-webhook',
    async run(stack) {
      const { merchant: m } = await connectedMerchant(stack, 'Loja Conectada');
      const [{ id: connectionId }] = await stack.sequelize.query<{ id: string }>(
        `SELECT id FROM psp_connections WHERE merchant_id = :merchantId AND status = 'ACTIVE'`,
        { replacements: { merchantId: m.merchantId }, type: QueryTypes.SELECT },
      );
      const ids = [`psp-connection-test-${key()}`, `psp-connection-webhook-${key()}`];
      const test = await stack.temporal.workflow.start('pspConnectionTest', {
        taskQueue: stack.taskQueue,
        workflowId: ids[0],
        args: [{ connectionId }],
      });
      await waitClosed(test);
      const webhook = await stack.temporal.workflow.start('pspConnectionWebhook', {
        taskQueue: stack.taskQueue,
        workflowId: ids[1],
        args: [{ connectionId, publicBaseUrl: stack.apiUrl }],
      });
      await waitClosed(webhook);
      return ids;
    },
  },
  {
    // One pass of the connected accounts' balance reading, as its Schedule starts it every minute:
    // one activity whatever the number of connections (each read inside it), so none is needed here.
    name: 'psp-balance-reading',
    async run(stack) {
      const id = `psp-balance-reading-capture-${key()}`;
      await stack.temporal.workflow.execute<typeof pspBalanceReading>('pspBalanceReading', {
        taskQueue: stack.taskQueue,
        workflowId: id,
        args: [],
      });
      return [id];
    },
  },
  {
    // A rotation of a merchant's connection, staged as POST /dashboard/connection/rotate stages it
    // (the same client secret again: its test passes) and tested and promoted through the worker.
    name: 'psp-connection-rotate',
    async run(stack) {
      const { credentialsKeyring } = await import('../core/crypto/envelope');
      const { pspConnectionStore, stageRotation } = await import('../db/connections');
      const { merchant: m, account } = await connectedMerchant(stack, 'Loja Rotativa', { webhook: true });
      const row = await pspConnectionStore.findActiveConnection(stack.sequelize, m.merchantId);
      if (!row) throw new Error('psp-connection-rotate: the connection was not registered');
      const staged = await stageRotation(stack.sequelize, credentialsKeyring(stack.encryptionKey), row, {
        clientSecret: account.clientSecret,
      });
      const id = `psp-connection-rotate-${key()}`;
      const rotate = await stack.temporal.workflow.start('pspConnectionRotate', {
        taskQueue: stack.taskQueue,
        workflowId: id,
        args: [{ connectionId: row.id, pending: staged.ref }],
      });
      await waitClosed(rotate);
      return [id];
    },
  },
  {
    // A connected merchant's split recipient at another PSP (its connection at another origin of
    // the same sandbox): the share is sent from the owner's account after settlement.
    name: 'split-send-sent',
    async run(stack) {
      const { merchant: owner } = await connectedMerchant(stack, 'Loja Divide', { webhook: true });
      // The payment's notification reaches the gateway through the owner's connection's own webhook.
      const far = (
        await connectedMerchant(stack, 'Parceiro Longe', {
          origin: stack.pixApiUrl.replace('127.0.0.1', 'localhost'),
          webhook: true,
        })
      ).merchant;
      const charge = await must(
        'create split charge',
        201,
        stack.api('POST', '/sellers/pix', {
          creds: owner,
          body: { amountCents: 3_000, splits: [{ merchantId: far.merchantId, amountCents: 1_000 }] },
        }),
      );
      await stack.pay(charge.body.id);
      const id = splitSendWorkflowId(splitSendIdFor(charge.body.id, far.merchantId));
      for (let i = 0; i < 300; i++) {
        const started = await stack.temporal.workflow
          .getHandle(id)
          .describe()
          .then(() => true)
          .catch(() => false);
        if (started) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      await waitClosed(stack.temporal.workflow.getHandle(id));
      return [id];
    },
  },
  {
    name: 'paid',
    async run(stack) {
      const m = await stack.createMerchant({ name: 'Loja Paga' });
      const id = await newCharge(stack, m);
      await stack.pay(id);
      await waitClosed(stack.temporal.workflow.getHandle(chargeWorkflowId(id)));
      return [chargeWorkflowId(id)];
    },
  },
  {
    // The daily run for today (Brasília) over a day with a paid charge: one child reconciliation per merchant.
    name: 'daily-reconciliation',
    async run(stack) {
      const m = await stack.createMerchant({ name: 'Loja Concilia' });
      const id = await newCharge(stack, m);
      await stack.pay(id);
      await waitClosed(stack.temporal.workflow.getHandle(chargeWorkflowId(id)));
      const workflowId = `daily-reconciliation-capture-${crypto.randomUUID()}`;
      const day = new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10);
      const { reconciliationIds } = await stack.temporal.workflow.execute<typeof dailyReconciliation>(
        'dailyReconciliation',
        { taskQueue: stack.taskQueue, workflowId, args: [{ day }] },
      );
      return [workflowId, ...reconciliationIds.map(reconciliationWorkflowId)];
    },
  },
  {
    // One firing of a merchant's settlement schedule (D0, everything available): the plan, then
    // the child withdrawalLifecycle carrying the settlement, COMPLETED.
    name: 'scheduled-settlement',
    async run(stack) {
      const m = await withdrawingMerchant(stack, `repasse+${crypto.randomUUID().slice(0, 8)}@loja-historico.com.br`);
      await stack.sequelize.query(
        `INSERT INTO settlement_schedules (merchant_id, frequency, minimum_amount_cents) VALUES (:m, 'D0', 0)`,
        { replacements: { m: m.merchantId } },
      );
      const workflowId = `settlement-${m.merchantId}-capture`;
      const result = await stack.temporal.workflow.execute<typeof scheduledSettlement>('scheduledSettlement', {
        taskQueue: stack.taskQueue,
        workflowId,
        args: [{ merchantId: m.merchantId }],
      });
      if (!result.settlementId) throw new Error(`scheduled settlement skipped: ${JSON.stringify(result.plan)}`);
      await waitClosed(stack.temporal.workflow.getHandle(withdrawalWorkflowId(result.settlementId)));
      return [workflowId, withdrawalWorkflowId(result.settlementId)];
    },
  },
  {
    // Two Pix infractions (MED) opened at the sandbox against one paid charge and pulled by a
    // sync: one ACCEPTED (devolução through a child refundLifecycle), one REJECTED.
    name: 'med-infractions',
    async run(stack) {
      const m = await stack.createMerchant({ name: 'Loja MED' });
      const id = await newCharge(stack, m);
      await stack.pay(id);
      await waitClosed(stack.temporal.workflow.getHandle(chargeWorkflowId(id)));
      for (const amountCents of [500, 700]) {
        const res = await fetch(`${stack.sandboxUrl}/sandbox/charges/${pspChargeRef(id)}/infractions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ amountCents }),
        });
        if (res.status !== 201) throw new Error(`open infraction: ${res.status}`);
      }
      const syncId = `med-infraction-sync-capture-${crypto.randomUUID()}`;
      const { createdIds } = await stack.temporal.workflow.execute<typeof medInfractionSync>('medInfractionSync', {
        taskQueue: stack.taskQueue,
        workflowId: syncId,
        args: [{ merchantId: m.merchantId, analysisDeadlineMs: 7 * 86_400_000, reminderBeforeMs: 86_400_000 }],
      });
      const made = [syncId];
      for (const [i, infractionId] of createdIds.entries()) {
        const handle = stack.temporal.workflow.getHandle(medInfractionWorkflowId(infractionId));
        const decision = i === 0 ? 'ACCEPT' : 'REJECT';
        await handle.executeUpdate(decideInfractionUpdate, {
          args: [{ decision, justification: `capture-histories ${decision}`, decidedBy: 'capture' }],
        });
        await waitClosed(handle);
        made.push(medInfractionWorkflowId(infractionId));
      }
      const refunds = await stack.sequelize.query<{ refund_id: string }>(
        `SELECT refund_id FROM med_infractions WHERE refund_id IS NOT NULL AND merchant_id = :m`,
        { replacements: { m: m.merchantId }, type: QueryTypes.SELECT },
      );
      return [...made, ...refunds.map((r) => refundWorkflowId(r.refund_id))];
    },
  },
  {
    // MED 2.0, the PSP decides (issue 38): three infractions on one charge. Two defended (REJECT:
    // IN_DEFENCE), then decided at the sandbox: one UPHELD (the devolução through a child
    // refundLifecycle), one DISMISSED (released); the third CANCELLED by the PSP while OPEN. A
    // second sync reads the decisions and signals each workflow its pspOutcome.
    name: 'med-psp-outcome',
    async run(stack) {
      const m = await stack.createMerchant({ name: 'Loja MED PSP' });
      const id = await newCharge(stack, m);
      await stack.pay(id);
      await waitClosed(stack.temporal.workflow.getHandle(chargeWorkflowId(id)));
      const control = async (path: string, body: object) => {
        const res = await fetch(`${stack.sandboxUrl}/sandbox${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        if (res.status >= 300) throw new Error(`sandbox ${path}: ${res.status}`);
        return (await res.json()) as { id: string };
      };
      const opened: string[] = [];
      for (const amountCents of [300, 400, 500])
        opened.push((await control(`/charges/${pspChargeRef(id)}/infractions`, { amountCents })).id);
      const sync = async () => {
        const syncId = `med-infraction-sync-capture-${crypto.randomUUID()}`;
        const result = await stack.temporal.workflow.execute<typeof medInfractionSync>('medInfractionSync', {
          taskQueue: stack.taskQueue,
          workflowId: syncId,
          args: [{ merchantId: m.merchantId, analysisDeadlineMs: 7 * 86_400_000, reminderBeforeMs: 86_400_000 }],
        });
        return { syncId, result };
      };
      const first = await sync();
      const ours = await stack.sequelize.query<{ id: string; provider_infraction_id: string }>(
        `SELECT id, provider_infraction_id FROM med_infractions WHERE merchant_id = :m`,
        { replacements: { m: m.merchantId }, type: QueryTypes.SELECT },
      );
      const idOf = (providerId: string) => ours.find((r) => r.provider_infraction_id === providerId)!.id;
      const [upheld, dismissed, cancelled] = opened;
      for (const providerId of [upheld, dismissed]) {
        const handle = stack.temporal.workflow.getHandle(medInfractionWorkflowId(idOf(providerId)));
        await handle.executeUpdate(decideInfractionUpdate, {
          args: [{ decision: 'REJECT', justification: 'capture-histories defence', decidedBy: 'capture' }],
        });
      }
      await control(`/infractions/${upheld}/decision`, { outcome: 'UPHELD' });
      await control(`/infractions/${dismissed}/decision`, { outcome: 'DISMISSED' });
      await control(`/infractions/${cancelled}/decision`, { outcome: 'CANCELLED' });
      const second = await sync();
      const made = [first.syncId, second.syncId];
      for (const providerId of opened) {
        await waitClosed(stack.temporal.workflow.getHandle(medInfractionWorkflowId(idOf(providerId))));
        made.push(medInfractionWorkflowId(idOf(providerId)));
      }
      const refunds = await stack.sequelize.query<{ refund_id: string }>(
        `SELECT refund_id FROM med_infractions WHERE refund_id IS NOT NULL AND merchant_id = :m`,
        { replacements: { m: m.merchantId }, type: QueryTypes.SELECT },
      );
      return [...made, ...refunds.map((r) => refundWorkflowId(r.refund_id))];
    },
  },
  {
    // One Pix infraction left unanswered with a deadline seconds away (issue 38): the 6 h alert at
    // once (the others already passed), then, just before the deadline, the default ACCEPT (no
    // defence stored) and its devolução through a child refundLifecycle.
    name: 'med-deadline-alerts',
    async run(stack) {
      const m = await stack.createMerchant({ name: 'Loja MED prazo' });
      const id = await newCharge(stack, m);
      await stack.pay(id);
      await waitClosed(stack.temporal.workflow.getHandle(chargeWorkflowId(id)));
      const res = await fetch(`${stack.sandboxUrl}/sandbox/charges/${pspChargeRef(id)}/infractions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ amountCents: 300 }),
      });
      if (res.status !== 201) throw new Error(`open infraction: ${res.status}`);
      const syncId = `med-infraction-sync-capture-${crypto.randomUUID()}`;
      const { createdIds } = await stack.temporal.workflow.execute<typeof medInfractionSync>('medInfractionSync', {
        taskQueue: stack.taskQueue,
        workflowId: syncId,
        args: [{ merchantId: m.merchantId, analysisDeadlineMs: 4_000, reminderBeforeMs: 800 }],
      });
      const made = [syncId];
      for (const infractionId of createdIds) {
        await waitClosed(stack.temporal.workflow.getHandle(medInfractionWorkflowId(infractionId)));
        made.push(medInfractionWorkflowId(infractionId));
      }
      const refunds = await stack.sequelize.query<{ refund_id: string }>(
        `SELECT refund_id FROM med_infractions WHERE refund_id IS NOT NULL AND merchant_id = :m`,
        { replacements: { m: m.merchantId }, type: QueryTypes.SELECT },
      );
      return [...made, ...refunds.map((r) => refundWorkflowId(r.refund_id))];
    },
  },
  {
    // A charge paid whose notification the PSP lost, taken by one pass of the sweep (GET /pix).
    name: 'pix-payment-sweep',
    async run(stack) {
      const m = await stack.createMerchant({ name: 'Loja Varredura' });
      const id = await newCharge(stack, m);
      const paid = await fetch(`${stack.sandboxUrl}/sandbox/charges/${pspChargeRef(id)}/pay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ callback: false }),
      });
      if (paid.status !== 200) throw new Error(`pay without callback: ${paid.status}`);
      const sweepId = `pix-payment-sweep-capture-${crypto.randomUUID()}`;
      await stack.temporal.workflow.execute<typeof pixPaymentSweep>('pixPaymentSweep', {
        taskQueue: stack.taskQueue,
        workflowId: sweepId,
        args: [{ lookbackMs: PIX_SWEEP_LOOKBACK_MS }],
      });
      await waitClosed(stack.temporal.workflow.getHandle(chargeWorkflowId(id)));
      return [sweepId, chargeWorkflowId(id)];
    },
  },
  {
    // The shortest expiry the API accepts is one minute.
    name: 'expired',
    long: true,
    async run(stack) {
      const m = await stack.createMerchant({ name: 'Loja Expira' });
      const shortLived = await stack.extraApi({ defaultChargeTtlSeconds: 61 });
      try {
        const id = await newCharge(stack, m, shortLived.url);
        await waitClosed(stack.temporal.workflow.getHandle(chargeWorkflowId(id)), 90_000);
        return [chargeWorkflowId(id)];
      } finally {
        await shortLived.close();
      }
    },
  },
  {
    // An operator cancels the run (Temporal Web UI / client); then the provider confirms a
    // payment for it anyway, which the callback service hands to settleLatePayment.
    name: 'cancelled-then-paid-late',
    async run(stack) {
      const m = await stack.createMerchant({ name: 'Loja Cancela' });
      const id = await newCharge(stack, m);
      const handle = stack.temporal.workflow.getHandle(chargeWorkflowId(id));
      await handle.cancel();
      await waitClosed(handle);
      const charge = await Charge.findByPk(id);
      const endToEndId = `E${Date.now()}${crypto.randomBytes(6).toString('hex')}`.slice(0, 32);
      const late = await stack.temporal.workflow.start('settleLatePayment', {
        workflowId: latePaymentWorkflowId(id, endToEndId),
        taskQueue: stack.taskQueue,
        args: [
          {
            chargeId: id,
            payment: {
              providerChargeId: charge?.providerChargeId,
              endToEndId,
              amountCents: 1_500,
              paidAt: new Date().toISOString(),
              payer: null,
            },
          },
        ],
      });
      await waitClosed(late, 20_000);
      return [chargeWorkflowId(id), late.workflowId];
    },
  },
  {
    name: 'withdrawal-completed',
    async run(stack) {
      return [withdrawalWorkflowId(await withdrawalRun(stack, `financeiro+${key().slice(0, 8)}@loja.com.br`))];
    },
  },
  {
    // The sandbox refuses transfers to keys starting with "invalid": a business refusal.
    name: 'withdrawal-refused',
    async run(stack) {
      const m = await withdrawingMerchant(stack, `invalid-${key().slice(0, 8)}@example.com`);
      const w = await must(
        'withdraw',
        201,
        stack.api('POST', '/sellers/saques', {
          creds: m,
          body: { amountCents: 1_000 },
          headers: { 'idempotency-key': key() },
        }),
      );
      await waitClosed(stack.temporal.workflow.getHandle(withdrawalWorkflowId(w.body.id)));
      return [withdrawalWorkflowId(w.body.id)];
    },
  },
  {
    // A notice about the withdrawal's send that may change something (a return, a reason) starts
    // sent-pix-<idEnvio>, which reads the send back; a plain one about a settled send gets no run
    // (db/transfers/sentPixNotice.ts), so the run is started here as the notice route would.
    name: 'sent-pix-notice-of-a-withdrawal',
    async run(stack) {
      const withdrawalId = await withdrawalRun(stack, `envio+${key().slice(0, 8)}@loja.com.br`);
      const idEnvio = idEnvioFor(withdrawalId);
      const notice = sentPixNoticeWorkflowId(idEnvio);
      await executeWorkflow(stack.temporal, sentPixNoticeWorkflow, {
        taskQueue: stack.taskQueue,
        workflowId: notice,
        args: [{ idEnvio, reason: null }],
      });
      return [notice];
    },
  },
  {
    name: 'janitor-run',
    async run(stack) {
      const workflowId = `janitor-capture-${crypto.randomUUID()}`;
      await stack.temporal.workflow.execute('janitor', { taskQueue: stack.taskQueue, workflowId });
      return [workflowId];
    },
  },
  {
    name: 'payout-batch-completed-with-refusals',
    async run(stack) {
      const { items, payoutMerchant, fundByPaidCharge, signedCall } = await import('../test/support/payouts');
      const m = await payoutMerchant(stack);
      await fundByPaidCharge(stack, m, 100_000);
      const b = await must(
        'batch',
        201,
        signedCall(stack, m, 'POST', '/v1/payouts/batches', {
          idempotencyKey: key(),
          items: items(4, { failEvery: 2 }),
        }),
      );
      await waitClosed(stack.temporal.workflow.getHandle(payoutBatchWorkflowId(b.body.batchId)));
      return [payoutBatchWorkflowId(b.body.batchId)];
    },
  },
  {
    name: 'webhook-delivered-after-a-retry',
    // The first attempt fails; the retry (10 s later) succeeds.
    run: (stack) => chargePaidAfterAFailedAttempt(stack, 'Loja Webhook', { status: 500 }),
  },
  {
    // A 429 with Retry-After: 15 (the schedule says 10 s): the retry waits the receiver's 15 s
    // ('delivery-retry-after').
    name: 'webhook-retry-after',
    run: (stack) =>
      chargePaidAfterAFailedAttempt(stack, 'Loja Webhook Ocupada', { status: 429, headers: { 'retry-after': '15' } }),
  },
  {
    // A webhook disabled while a charge is paid, then re-enabled: its WebhookReplay sends the
    // missed charge.paid.
    name: 'webhook-replay-on-re-enable',
    async run(stack) {
      const { startReceiver } = await import('../test/support/receiver');
      const receiver = await startReceiver();
      try {
        const m = await stack.createMerchant({ name: 'Loja Reativada' });
        const hook = await chargePaidHook(stack, m, `${receiver.url}/hook`);
        await must(
          'disable',
          200,
          stack.api('PATCH', `/sellers/webhooks/${hook.body.id}`, { creds: m, body: { active: false } }),
        );
        const id = await newCharge(stack, m);
        await stack.pay(id);
        await waitClosed(stack.temporal.workflow.getHandle(chargeWorkflowId(id)));
        // Replayed only once dispatched (to no one): before that the dispatcher itself sends it.
        const deadline = Date.now() + 20_000;
        for (;;) {
          const [e] = await stack.sequelize.query<{ dispatched: boolean }>(
            `SELECT dispatched_at IS NOT NULL AS dispatched FROM outbox_events WHERE aggregate_id = :id AND type = 'charge.paid'`,
            { replacements: { id }, type: QueryTypes.SELECT },
          );
          if (e?.dispatched || Date.now() > deadline) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        const [{ disabled_at }] = await stack.sequelize.query<{ disabled_at: Date }>(
          'SELECT disabled_at FROM webhook_endpoints WHERE id = :id',
          { replacements: { id: hook.body.id }, type: QueryTypes.SELECT },
        );
        await must(
          're-enable',
          200,
          stack.api('PATCH', `/sellers/webhooks/${hook.body.id}`, { creds: m, body: { active: true } }),
        );
        const replay = replayWorkflowId(hook.body.id, new Date(disabled_at));
        await waitClosed(stack.temporal.workflow.getHandle(replay));
        return [chargeWorkflowId(id), replay];
      } finally {
        await receiver.close();
      }
    },
  },
  {
    // The SMTP server is down for the first attempt: deliverMail fails, is retried, and sends.
    name: 'mail-sent-after-a-retry',
    async run(stack) {
      const mailer = new Mailer({
        sequelize: stack.sequelize,
        temporal: stack.temporal,
        taskQueue: stack.taskQueue,
        encryptionKey: stack.encryptionKey,
      });
      await stack.mail.stop();
      const { mailId } = await mailer.send({ to: 'historico@example.com', subject: 'Código', text: 'Código: 000000' });
      const deadline = Date.now() + 20_000;
      for (;;) {
        const [row] = (
          await stack.sequelize.query('SELECT attempts FROM outgoing_mails WHERE id = :mailId', {
            replacements: { mailId },
          })
        )[0] as Array<{ attempts: number }>;
        if ((row?.attempts ?? 0) >= 1 || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      await stack.restartMail();
      await waitClosed(stack.temporal.workflow.getHandle(mailWorkflowId(mailId)));
      return [mailWorkflowId(mailId)];
    },
  },
  {
    // The server refuses the recipient for good (the sink's refused.invalid): failMail closes the row.
    name: 'mail-refused',
    async run(stack) {
      const mailer = new Mailer({
        sequelize: stack.sequelize,
        temporal: stack.temporal,
        taskQueue: stack.taskQueue,
        encryptionKey: stack.encryptionKey,
      });
      const { mailId } = await mailer.send({
        to: 'ninguem@refused.invalid',
        subject: 'Código',
        text: 'Código: 000000',
      });
      await waitClosed(stack.temporal.workflow.getHandle(mailWorkflowId(mailId)));
      return [mailWorkflowId(mailId)];
    },
  },
  {
    name: 'charge-issue-failed',
    exclusive: true,
    async run(stack) {
      const m = await stack.createMerchant({ name: 'Loja Falha' });
      await setFaults(stack, { errorRate: 1 });
      try {
        const res = await stack.api('POST', '/sellers/pix', { creds: m, body: { amountCents: 1_500 } });
        if (res.status !== 502) throw new Error(`issue failure: expected 502, got ${res.status}`);
      } finally {
        await setFaults(stack, null); // the orphan close after the failure needs the provider back
      }
      // The failed charge may leave no row (no ghost charge): find its run by the merchant's search attribute.
      const ids: string[] = [];
      for (let tries = 0; ids.length === 0 && tries < 50; tries++) {
        for await (const wf of stack.temporal.workflow.list({ query: `MerchantId = "${m.merchantId}"` }))
          ids.push(wf.workflowId);
        if (ids.length === 0) await new Promise((r) => setTimeout(r, 200));
      }
      for (const id of ids) await waitClosed(stack.temporal.workflow.getHandle(id));
      return ids;
    },
  },
  {
    name: 'withdrawal-cancelled',
    exclusive: true,
    async run(stack) {
      const m = await withdrawingMerchant(stack, `financeiro+${key().slice(0, 8)}@loja.com.br`);
      await setFaults(stack, { latencyMs: 3_000 });
      try {
        const w = await must(
          'withdraw',
          201,
          stack.api('POST', '/sellers/saques', {
            creds: m,
            body: { amountCents: 1_000 },
            headers: { 'idempotency-key': key() },
          }),
        );
        const handle = stack.temporal.workflow.getHandle(withdrawalWorkflowId(w.body.id));
        await handle.cancel();
        await setFaults(stack, null); // the provider answers again (within the client's 2 s timeout)
        // A transfer interrupted with no answer is released only after a grace period (minutes):
        // the partial history (cancel, lookup, grace timer) is what replay needs.
        await waitClosed(handle, 10_000);
        return [withdrawalWorkflowId(w.body.id)];
      } finally {
        await setFaults(stack, null);
      }
    },
  },
  {
    name: 'payout-batch-cancelled',
    exclusive: true,
    async run(stack) {
      const { items, payoutMerchant, fundByPaidCharge, signedCall } = await import('../test/support/payouts');
      const m = await payoutMerchant(stack);
      await fundByPaidCharge(stack, m, 100_000);
      await setFaults(stack, { latencyMs: 1_500 });
      try {
        const b = await must(
          'batch',
          201,
          signedCall(stack, m, 'POST', '/v1/payouts/batches', { idempotencyKey: key(), items: items(6) }),
        );
        await signedCall(stack, m, 'POST', `/v1/payouts/batches/${b.body.batchId}/cancel`, {
          reason: 'capture-histories',
        });
        await setFaults(stack, null);
        await waitClosed(stack.temporal.workflow.getHandle(payoutBatchWorkflowId(b.body.batchId)));
        return [payoutBatchWorkflowId(b.body.batchId)];
      } finally {
        await setFaults(stack, null);
      }
    },
  },
];

/**
 * The history as plain JSON (int64 as strings, enums by name, bytes in base64), read back with
 * History.fromObject in test/replay/replay.test.ts. Not historyToJSON (proto3 JSON): in this
 * install @temporalio/common and @temporalio/proto carry separate protobufjs copies and it throws
 * "type must be a Type"; toObject/fromObject use @temporalio/proto's own.
 */
function historyToObject(history: proto.api.history.v1.IHistory): unknown {
  return proto.api.history.v1.History.toObject(history as proto.api.history.v1.History, {
    longs: String,
    enums: String,
    bytes: String,
  });
}

function parseArgs(argv: string[]): { suffix?: string; only?: string } {
  const out: { suffix?: string; only?: string } = {};
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--suffix') out.suffix = argv[++i];
    else if (argv[i] === '--only') out.only = argv[++i];
    else throw new Error(`unknown argument ${argv[i]} (use --suffix <label> or --only <scenario>)`);
  }
  if (out.suffix && !/^[\w-]+$/.test(out.suffix)) throw new Error('--suffix: letters, digits, - and _ only');
  return out;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const started = Date.now();
  ensureTools('cli');
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-capture-'));
  // The stack's helpers read these (test/support/env.ts); NODE_ENV=test keeps its logs in logDir.
  process.env.NODE_ENV = 'test';
  process.env.GATEWAY_TEST_LOG_DIR = logDir;

  const database = `gw_capture_${Date.now()}`;
  const pgPort = await freePort();
  const db = await prepareDatabase({
    database,
    dataDir: path.join('.data', `capture-postgres-${process.pid}`),
    port: pgPort,
  });
  const temporal = await startTemporalDevServer({ port: await freePort(), logFile: path.join(logDir, 'temporal.log') });
  let stack: IntegrationStack | undefined;
  try {
    // The admin login, as npm test hands it to jest: the stack makes its own database with it.
    process.env.DATABASE_URL = db.adminUrl;
    process.env.TEMPORAL_ADDRESS = temporal.address;
    const sequelize = createSequelize(db.migrationUrl, { poolMax: 2 });
    await runMigrations(sequelize);
    await sequelize.close();
    const { startIntegrationStack } = await import('../test/support/integrationStack');
    stack = await startIntegrationStack({ webhookDispatcher: true });
    log(`stack ready in ${((Date.now() - started) / 1000).toFixed(1)} s; running scenarios (logs: ${logDir})`);

    const chosen = scenarios.filter((s) => !args.only || s.name === args.only);
    if (chosen.length === 0)
      throw new Error(`no scenario named ${args.only}; have: ${scenarios.map((s) => s.name).join(', ')}`);
    const made = new Map<string, string[]>();
    const failed: string[] = [];
    // A failed scenario is reported and the others still run and are written: one broken path
    // (say, after a workflow change) must not cost the histories of every other.
    const runOne = async (s: Scenario) => {
      const t = Date.now();
      try {
        made.set(s.name, await s.run(stack as IntegrationStack));
        log(`  ${s.name}: ${((Date.now() - t) / 1000).toFixed(1)} s`);
      } catch (err) {
        failed.push(s.name);
        log(`  ${s.name} FAILED: ${err instanceof Error ? err.message : String(err)}`);
      }
    };
    const long = Promise.all(chosen.filter((s) => s.long).map(runOne));
    await Promise.all(chosen.filter((s) => !s.exclusive && !s.long).map(runOne));
    for (const s of chosen.filter((x) => x.exclusive)) await runOne(s);
    await long;

    // Every run on this stack's task queue, matched to the scenario that made it by workflow id prefix.
    const written: string[] = [];
    const seen = new Set<string>();
    const query = [stack.taskQueue, ...ownTaskQueues].map((q) => `TaskQueue = "${q}"`).join(' OR ');
    for await (const wf of stack.temporal.workflow.list({ query })) {
      const scenario = [...made].find(([, prefixes]) => prefixes.some((p) => wf.workflowId.startsWith(p)))?.[0];
      const isDispatcher = wf.workflowId === dispatcherWorkflowId(stack.taskQueue);
      if (!scenario && !isDispatcher) continue;
      const name = isDispatcher ? 'running' : scenario!;
      let file = `${name}${args.suffix ? `.${args.suffix}` : ''}`;
      for (let n = 2; seen.has(`${wf.type}/${file}`); n++) file = `${name}-${n}${args.suffix ? `.${args.suffix}` : ''}`;
      seen.add(`${wf.type}/${file}`);
      const history = await stack.temporal.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
      const target = path.join(historiesDir, wf.type, `${file}.json`);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      // The workflow id goes with the history: replay needs it (child workflow ids derive from it).
      fs.writeFileSync(
        target,
        `${JSON.stringify({ workflowId: wf.workflowId, ...(historyToObject(history) as object) }, null, 1)}\n`,
      );
      written.push(path.relative(projectRoot, target));
    }
    written.sort().forEach((f) => log(`  wrote ${f}`));
    log(`${written.length} histories in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    if (failed.length > 0) throw new Error(`scenarios failed: ${failed.join(', ')} (logs: ${logDir})`);
  } finally {
    await stack?.stop();
    await temporal.stop();
    await db.stop();
    fs.rmSync(path.join(projectRoot, '.data', `capture-postgres-${process.pid}`), { recursive: true, force: true });
    // The stack recorded its secrets for the test run's audit; nobody audits this run.
    fs.rmSync(path.join(logDir, 'issued-secrets'), { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`[capture] failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
