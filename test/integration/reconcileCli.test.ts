/**
 * `gateway withdrawal reconcile` after Efí made the send: the repair must ask Efí's record by
 * idEnvio, as the worker does. The command used to ask the sandbox's own /v1 API, which has no
 * record under our id for a send made through Efí's routes: past the grace period it released the
 * reserve of a withdrawal that had been paid (money out twice: once at Efí, once back to the
 * merchant's balance). A stack of its own: it switches the sandbox's faults on.
 */
import crypto from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { providerFrom } from '../../activities/provider/providerFrom';
import { loadConfig } from '../../config';
import { accounts } from '../../core/ledger/accounts';
import { idEnvioFor } from '../../core/pix/apiPixIds';
import { Withdrawal } from '../../db/models';
import { withdrawalWorkflowId } from '../../workflows/withdrawals/definitions';
import { waitFor } from '../support/env';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { BUILD_WAIT_MS, builtOperatorCli, type OperatorCli } from '../support/operatorCli';
import { fundByPaidCharge, sandboxTransfers, setFaults } from '../support/payouts';
import { testLogger } from '../support/testLogs';
import { killHard, spawnWorkerProcess } from '../support/workerProcess';

jest.setTimeout(120_000);

let stack: IntegrationStack;
let cli: OperatorCli;
let worker: ChildProcess | null = null;

beforeAll(async () => {
  // A worker process of its own, so the test can kill it: an attempt still running in a live
  // worker would make the send and settle the withdrawal itself, behind the command's back.
  stack = await startIntegrationStack({ inProcessWorker: false });
  worker = spawnWorkerProcess(stack.workerEnv);
  cli = await builtOperatorCli();
}, BUILD_WAIT_MS);

afterAll(async () => {
  if (worker) await killHard(worker);
  await stack?.stop();
});

async function pauseSendWebhooks(paused: boolean): Promise<void> {
  const res = await fetch(`${stack.sandboxUrl}/sandbox/efi/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ paused }),
  });
  expect(res.status).toBeLessThan(300);
}

it('a withdrawal whose workflow was terminated after Efí made its send is reconciled COMPLETED from Efí’s record, not released', async () => {
  const pixKey = `financeiro+${crypto.randomUUID().slice(0, 8)}@loja.com.br`;
  const seller = await stack.createMerchant({
    name: 'Loja Reconcilia',
    document: '11144477735',
    pixKey,
    pixKeyType: 'EMAIL',
  });
  await fundByPaidCharge(stack, seller, 30_000);
  const available = () => balance(stack.sequelize, accounts.merchantAvailable(seller.merchantId));
  const before = await available();

  // Every call to the PSP fails while the withdrawal is requested: reserved, never sent by us.
  await setFaults(stack, { errorRate: 1 });
  let withdrawalId: string;
  try {
    const res = await stack.api('POST', '/sellers/saques', {
      creds: seller,
      body: { amountCents: 10_000 },
      headers: { 'x-idempotency-key': `saque-${crypto.randomUUID()}` },
    });
    expect(res.status).toBe(201);
    withdrawalId = res.body.id;
    // The worker dies and the run is terminated with the withdrawal still PROCESSING.
    await killHard(worker!);
    worker = null;
    await stack.temporal.workflow.getHandle(withdrawalWorkflowId(withdrawalId)).terminate('test: workflow gone');
  } finally {
    await setFaults(stack, null);
  }
  expect((await Withdrawal.findByPk(withdrawalId))?.status).toBe('PROCESSING');

  // An attempt of ours had gone through after all: Efí made the send under the withdrawal's idEnvio.
  // Its notice is lost (webhooks paused): the notice's own repair (sentPixNotice) would settle it
  // before the command could show what it does.
  await pauseSendWebhooks(true);
  const psp = providerFrom(
    loadConfig({ ...process.env, NODE_ENV: 'test', ...stack.workerEnv }),
    testLogger('reconcile-test'),
  );
  try {
    const config = loadConfig({ ...process.env, NODE_ENV: 'test', ...stack.workerEnv });
    await psp.efi!.send(idEnvioFor(withdrawalId), {
      valor: '100.00',
      pagador: { chave: config.pixTransfers.senderKey },
      favorecido: { chave: pixKey, cpf: '11144477735' },
    });
    await waitFor(async () => (await psp.efi!.sent(idEnvioFor(withdrawalId)))?.status === 'REALIZADO', 'the send made');
  } finally {
    await psp.close();
  }
  // Long past the grace period: only a record decides now.
  await stack.sequelize.query(`UPDATE withdrawals SET updated_at = now() - interval '10 minutes' WHERE id = :id`, {
    replacements: { id: withdrawalId },
  });

  const out = await cli
    .run(['withdrawal', 'reconcile', withdrawalId], { ...stack.workerEnv, NODE_ENV: 'test' })
    .finally(() => pauseSendWebhooks(false));
  expect(out).toMatchObject({ status: 0 });
  expect(out.stdout).toContain(`withdrawal ${withdrawalId}: COMPLETED`);
  expect(out.stdout).toMatch(/settled paid by the provider's record: 1/);
  const row = await Withdrawal.findByPk(withdrawalId);
  expect(row?.status).toBe('COMPLETED');
  expect(await available()).toBe(before - 10_000 - (row?.feeCents ?? 0));
  expect(await balance(stack.sequelize, accounts.merchantReserved(seller.merchantId))).toBe(0);
  expect((await sandboxTransfers(stack))[withdrawalId]?.created).toBe(1);
  await assertLedgerInvariant(stack.sequelize);
});
