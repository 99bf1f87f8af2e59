/**
 * Money out through Efí's Pix send API on the real stack, under the failures an operator would
 * try: a send whose answer is lost, a send whose workflow is gone, a retried PUT answered 409
 * id_envio_duplicado, a forged REALIZADO notice for a send that failed, a send webhook that never
 * comes, and a sent Pix its recipient returns. A notice that reports no return and no reason gets
 * a run only when its send may need repair. Each scenario checks what the merchant sees (API), our
 * rows, the ledger and the sandbox's own record of the sends: exactly one accepted send per idEnvio.
 *
 * The shared stack: nothing here restarts the sandbox; faults and the webhook pause are the
 * sandbox's control routes, set back in `finally` (and faults reset for the next file anyway).
 */
import crypto from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { QueryTypes } from 'sequelize';
import { providerFrom } from '../../activities/provider/providerFrom';
import { EfiErrorCodes } from '../../activities/provider/efi/errors';
import { loadConfig } from '../../config';
import { accounts } from '../../core/ledger/accounts';
import { idEnvioFor } from '../../core/pix/apiPixIds';
import { ProviderError, type TransferRequest } from '../../core/provider';
import type { MerchantCredentials } from '../../db/identity/merchantAdmin';
import { Merchant, PayoutItem } from '../../db/models';
import { sentPixNoticeWorkflowId } from '../../workflows/transfers/definitions';
import { withdrawalWorkflowId } from '../../workflows/withdrawals/definitions';
import { waitFor } from '../support/env';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { fundByPaidCharge, items, sandboxTransfers, setFaults, signedCall, waitForBatchEnd } from '../support/payouts';
import { sharedIntegrationStack, type SharedStack } from '../support/sharedStack';
import { testLogger } from '../support/testLogs';

jest.setTimeout(180_000);

const WITHDRAWAL_FEE = 150;
const PAYOUT_FEE = 5;

let stack: SharedStack;

beforeAll(async () => {
  stack = await sharedIntegrationStack();
});

afterAll(async () => {
  await stack?.stop();
});

afterEach(async () => {
  await assertLedgerInvariant(stack.sequelize);
});

/** A merchant that may withdraw to `pixKey` and pay out batches. */
async function merchant(pixKey = `financeiro+${crypto.randomUUID().slice(0, 8)}@loja-efi.com.br`) {
  const creds = await stack.createMerchant({
    name: 'Loja Efí',
    document: '11144477735',
    pixKey,
    pixKeyType: 'EMAIL',
    withdrawalFeeCents: WITHDRAWAL_FEE,
    payoutsEnabled: true,
  });
  await Merchant.update({ payoutFeeCents: PAYOUT_FEE }, { where: { id: creds.merchantId } });
  return creds;
}

const available = (m: MerchantCredentials) => balance(stack.sequelize, accounts.merchantAvailable(m.merchantId));
const reserved = (m: MerchantCredentials) => balance(stack.sequelize, accounts.merchantReserved(m.merchantId));

async function withdraw(m: MerchantCredentials, amountCents: number): Promise<string> {
  const res = await stack.api('POST', '/sellers/saques', {
    creds: m,
    body: { amountCents },
    headers: { 'x-idempotency-key': `efi-${crypto.randomUUID()}` },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function withdrawalEnds(m: MerchantCredentials, id: string, timeoutMs = 90_000) {
  return waitFor(
    async () => {
      const res = await stack.api('GET', `/sellers/saques/${id}`, { creds: m });
      return res.body?.status && res.body.status !== 'PROCESSING' ? res.body : null;
    },
    `withdrawal ${id} to end`,
    timeoutMs,
  );
}

async function payoutBatch(m: MerchantCredentials, batchItems: ReturnType<typeof items>): Promise<string> {
  const created = await signedCall(stack, m, 'POST', '/v1/payouts/batches', {
    idempotencyKey: `efi-${crypto.randomUUID()}`,
    items: batchItems,
  });
  expect(created.status).toBe(201);
  return created.body.batchId as string;
}

interface EnviadoAtSandbox {
  endToEndId: string;
  idEnvio: string;
  valor: string;
  chave: string;
  status: string;
  horario: { solicitacao: string; liquidacao?: string };
  devolucoes?: Array<{ id: string; valor: string; status: string }>;
}

/** The sandbox's own record of every Efí send (its control route: no faults there). */
async function enviados(): Promise<{ webhooksPaused: boolean; enviados: EnviadoAtSandbox[] }> {
  const res = await fetch(`${stack.sandboxUrl}/sandbox/efi/enviados`);
  expect(res.status).toBe(200);
  return (await res.json()) as { webhooksPaused: boolean; enviados: EnviadoAtSandbox[] };
}

/** Exactly one accepted send for each of our ids at the sandbox, and its record. */
async function expectOneSendEach(ourIds: string[]): Promise<Map<string, EnviadoAtSandbox>> {
  const [stats, all] = await Promise.all([sandboxTransfers(stack), enviados()]);
  const byId = new Map<string, EnviadoAtSandbox>();
  for (const id of ourIds) {
    expect({ id, created: stats[id]?.created }).toEqual({ id, created: 1 });
    const sends = all.enviados.filter((e) => e.idEnvio === idEnvioFor(id));
    expect(sends).toHaveLength(1);
    byId.set(id, sends[0]);
  }
  return byId;
}

/** The gateway's API Pix notification URL (the one it registered at the PSP). */
function notify(body: unknown): Promise<{ status: number; body: any }> {
  return fetch(`${stack.apiUrl}/webhooks/pix-api/${stack.workerEnv.PIX_WEBHOOK_SECRET}/pix`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then(async (res) => ({ status: res.status, body: await res.json() }));
}

/**
 * The send notice's workflow, once no run of it is going (a run started later is another one).
 * `started`: a notice is on its way (the sandbox's own, once the send settled): wait for its run too.
 */
async function noticeAtRest(idEnvio: string, opts: { started?: boolean } = {}): Promise<void> {
  await waitFor(
    async () => {
      try {
        const d = await stack.temporal.workflow.getHandle(sentPixNoticeWorkflowId(idEnvio)).describe();
        return d.status.name !== 'RUNNING';
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return !opts.started;
        throw err;
      }
    },
    `no sent-pix-${idEnvio} run going`,
    90_000,
  );
}

async function noticeStarted(idEnvio: string): Promise<boolean> {
  try {
    await stack.temporal.workflow.getHandle(sentPixNoticeWorkflowId(idEnvio)).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** The sandbox's own notice about the send (POSTed when it settled) was answered 2xx by the gateway. */
async function noticeDelivered(idEnvio: string): Promise<void> {
  await waitFor(
    async () => {
      const res = await fetch(`${stack.sandboxUrl}/sandbox/callbacks?chargeId=${idEnvio}`);
      const { attempts } = (await res.json()) as { attempts: Array<{ delivered: boolean }> };
      return attempts.some((a) => a.delivered);
    },
    `the sandbox's notice about ${idEnvio} answered`,
    90_000,
  );
}

/** A notice as Efí sends it for a send made, reporting no return and no reason. */
function madeNotice(idEnvio: string) {
  return {
    endToEndId: 'E12345678202501011200PlainNotice',
    chave: stack.workerEnv.PIX_RECEIVING_KEY,
    tipo: 'SOLICITACAO',
    status: 'REALIZADO',
    valor: '1.00',
    horario: new Date().toISOString(),
    gnExtras: { idEnvio },
  };
}

async function ledgerMovements(like: string): Promise<Array<{ key: string; cents: number }>> {
  const rows = await stack.sequelize.query<{ movement_key: string; amount: string }>(
    `SELECT t.movement_key, p.amount_cents AS amount FROM ledger_transactions t
     JOIN ledger_postings p ON p.transaction_id = t.id JOIN ledger_accounts a ON a.id = p.account_id
     WHERE t.movement_key LIKE :like AND a.code LIKE 'merchant:%'`,
    { replacements: { like }, type: QueryTypes.SELECT },
  );
  return byKey(rows.map((r) => ({ key: r.movement_key, cents: Number(r.amount) })));
}

/** In code-point order (the database's collation may order keys otherwise). */
function byKey<T extends { key: string }>(list: T[]): T[] {
  return [...list].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

it('a send whose answer is lost: the retry reads Efí first, the money leaves once', async () => {
  const m = await merchant();
  await fundByPaidCharge(stack, m, 100_000);
  const before = await available(m);

  // Processed, answer swallowed: every call of the worker, the PUTs and the GETs that follow.
  await setFaults(stack, { timeoutRate: 1 });
  let withdrawalId: string;
  let batchId: string;
  try {
    withdrawalId = await withdraw(m, 10_000);
    batchId = await payoutBatch(m, items(3, { amountCents: 2_000 }));
    const itemIds = (await PayoutItem.findAll({ where: { batchId } })).map((i) => i.id);
    const ids = [withdrawalId, ...itemIds];
    await waitFor(
      async () => {
        const made = new Set((await enviados()).enviados.map((e) => e.idEnvio));
        return ids.every((id) => made.has(idEnvioFor(id)));
      },
      'the sandbox to accept every send and lose its answer',
      120_000,
    );
    // Nothing settled or released while no answer comes.
    expect((await stack.api('GET', `/sellers/saques/${withdrawalId}`, { creds: m })).body.status).toBe('PROCESSING');
    expect(await PayoutItem.count({ where: { batchId, status: ['PAID', 'FAILED'] } })).toBe(0);
    // A notice with no return and no reason, about a send whose own workflow runs: that workflow
    // reads the outcome itself, so the notice is answered without a run.
    const idEnvio = idEnvioFor(withdrawalId);
    expect(await notify({ pix: [madeNotice(idEnvio)] })).toEqual({
      status: 200,
      body: { received: true, outcomes: [{ idEnvio, outcome: 'SENT_PIX_LEFT_TO_ITS_WORKFLOW' }] },
    });
  } finally {
    await setFaults(stack, null);
  }

  const done = await withdrawalEnds(m, withdrawalId);
  expect(done.status).toBe('COMPLETED');
  const batch = await waitForBatchEnd(stack, m, batchId, 120_000);
  expect(batch).toMatchObject({ status: 'COMPLETED', paidItems: 3, failedItems: 0 });

  const rows = await PayoutItem.findAll({ where: { batchId } });
  const ids = [withdrawalId, ...rows.map((r) => r.id)];
  const sends = await expectOneSendEach(ids);
  // The retries asked GET before any new PUT: one PUT per idEnvio, ever.
  const stats = await sandboxTransfers(stack);
  for (const id of ids) expect({ id, requests: stats[id]?.requests }).toEqual({ id, requests: 1 });
  expect(done.providerEndToEndId).toBe(sends.get(withdrawalId)!.endToEndId);
  for (const r of rows) {
    expect(r.status).toBe('PAID');
    expect(r.providerTransferId).toBe(idEnvioFor(r.id));
  }
  expect(await available(m)).toBe(before - (10_000 + WITHDRAWAL_FEE) - 3 * (2_000 + PAYOUT_FEE));
  expect(await reserved(m)).toBe(0);
  // The sandbox's own notices came while each send's workflow ran or once it was settled here:
  // none of them needed a run.
  for (const id of ids) await noticeDelivered(idEnvioFor(id));
  for (const id of ids) expect({ id, run: await noticeStarted(idEnvioFor(id)) }).toEqual({ id, run: false });
  await assertLedgerInvariant(stack.sequelize);
});

it('a notice about a send whose workflow is gone gets its run, which settles the send by its record', async () => {
  const m = await merchant();
  await fundByPaidCharge(stack, m, 50_000);
  const before = await available(m);

  await setFaults(stack, { timeoutRate: 1 });
  let withdrawalId: string;
  let idEnvio: string;
  try {
    withdrawalId = await withdraw(m, 8_000);
    idEnvio = idEnvioFor(withdrawalId);
    await waitFor(
      async () => (await enviados()).enviados.some((e) => e.idEnvio === idEnvio && e.status === 'REALIZADO'),
      'the sandbox to make the send and lose its answer',
      120_000,
    );
    // The sandbox's own notice came while the withdrawal's workflow ran: answered without a run.
    await noticeDelivered(idEnvio);
    expect(await noticeStarted(idEnvio)).toBe(false);
    // The workflow is gone (an operator terminated it) with the money still reserved.
    await stack.temporal.workflow.getHandle(withdrawalWorkflowId(withdrawalId)).terminate('test: workflow gone');
    expect((await stack.api('GET', `/sellers/saques/${withdrawalId}`, { creds: m })).body.status).toBe('PROCESSING');

    const res = await notify({ pix: [madeNotice(idEnvio)] });
    expect(res).toEqual({
      status: 200,
      body: { received: true, outcomes: [{ idEnvio, outcome: 'SENT_PIX_FOLLOWED' }] },
    });
  } finally {
    await setFaults(stack, null);
  }
  // The run repairs the send by Efí's record, without waiting for the janitor. An attempt of the
  // terminated run that was still in flight may have settled it just before: either way, once.
  const result = await stack.temporal.workflow.getHandle(sentPixNoticeWorkflowId(idEnvio)).result();
  expect(['REPAIRED', 'SETTLED']).toContain(result.outcome);
  expect(result.credited).toBe(0);
  const done = await withdrawalEnds(m, withdrawalId);
  expect(done.status).toBe('COMPLETED');
  const sends = await expectOneSendEach([withdrawalId]);
  expect(done.providerEndToEndId).toBe(sends.get(withdrawalId)!.endToEndId);
  expect(await available(m)).toBe(before - (8_000 + WITHDRAWAL_FEE));
  expect(await reserved(m)).toBe(0);
  await assertLedgerInvariant(stack.sequelize);
});

it('a 409 on a retried send: the adapter resolves it by GET, one send at Efí', async () => {
  // The adapter as the worker builds it (providerFrom), over HTTP against the stack's sandbox.
  const config = loadConfig({ ...process.env, NODE_ENV: 'test', ...stack.workerEnv });
  const psp = providerFrom(config, testLogger('efi-money-out-test'));
  try {
    const efi = psp.efi!;
    expect(efi).not.toBeNull();
    const req: TransferRequest = {
      reference: crypto.randomUUID(),
      amountCents: 1_234,
      pixKey: `recebedora+${crypto.randomUUID().slice(0, 8)}@example.com`,
      pixKeyType: 'EMAIL',
      recipientName: 'Recebedora',
    };
    const idEnvio = idEnvioFor(req.reference);

    // An earlier attempt went through, and our side never learnt it.
    const first = await efi.send(idEnvio, {
      valor: '12.34',
      pagador: { chave: config.pixTransfers.senderKey },
      favorecido: { chave: req.pixKey },
    });
    expect(first).toMatchObject({ idEnvio, status: 'EM_PROCESSAMENTO' });

    // The retry PUTs again: Efí answers 409 id_envio_duplicado, and the adapter reads the send.
    const transfer = await psp.provider.transfer(req);
    expect(transfer).toMatchObject({
      id: idEnvio,
      reference: req.reference,
      status: 'COMPLETED',
      amountCents: 1_234,
      endToEndId: first.e2eId,
      failureCode: null,
    });
    expect((await sandboxTransfers(stack))[req.reference]).toEqual({ requests: 2, created: 1 });
    const [sent] = (await enviados()).enviados.filter((e) => e.idEnvio === idEnvio);
    expect(sent).toMatchObject({ status: 'REALIZADO', valor: '12.34', endToEndId: first.e2eId });

    // The second PUT was indeed refused as a duplicate (a third, raw, shows the answer).
    const again = await efi
      .send(idEnvio, {
        valor: '12.34',
        pagador: { chave: config.pixTransfers.senderKey },
        favorecido: { chave: req.pixKey },
      })
      .catch((e: unknown) => e);
    expect(again).toBeInstanceOf(ProviderError);
    expect(again).toMatchObject({ code: EfiErrorCodes.sendIdUsed, httpStatus: 409, transient: false });
    expect((await sandboxTransfers(stack))[req.reference]).toEqual({ requests: 3, created: 1 });
    expect(await psp.provider.getTransferByReference(req.reference)).toMatchObject({ status: 'COMPLETED' });
  } finally {
    await psp.close();
  }
});

it('a forged REALIZADO notice for a send that failed moves no money', async () => {
  const m = await merchant(`invalid+${crypto.randomUUID().slice(0, 8)}@loja-efi.com.br`);
  await fundByPaidCharge(stack, m, 50_000);
  const before = await available(m);
  const withdrawalId = await withdraw(m, 10_000);
  const failed = await withdrawalEnds(m, withdrawalId);
  expect(failed.status).toBe('FAILED');
  expect(await available(m)).toBe(before);
  const idEnvio = idEnvioFor(withdrawalId);
  await expectOneSendEach([withdrawalId]);
  expect((await enviados()).enviados.find((e) => e.idEnvio === idEnvio)?.status).toBe('NAO_REALIZADO');
  // The sandbox's own NAO_REALIZADO notice names AC03; let its run finish, so ours is a run of its own.
  const refined = await waitFor(async () => {
    const res = await stack.api('GET', `/sellers/saques/${withdrawalId}`, { creds: m });
    return /Pix key was not found/.test(res.body?.failureReason ?? '') ? res.body : null;
  }, 'the real notice to name the reason');
  await noticeAtRest(idEnvio, { started: true });

  const forged = await notify({
    pix: [
      {
        endToEndId: 'E12345678202501011200ForgedForge',
        chave: stack.workerEnv.PIX_RECEIVING_KEY,
        tipo: 'SOLICITACAO',
        status: 'REALIZADO',
        valor: '100.00',
        horario: new Date().toISOString(),
        gnExtras: { idEnvio },
      },
    ],
  });
  expect(forged).toEqual({
    status: 200,
    body: { received: true, outcomes: [{ idEnvio, outcome: 'SENT_PIX_FOLLOWED' }] },
  });
  // The notice's run read Efí's record (NAO_REALIZADO): nothing settled.
  const result = await stack.temporal.workflow.getHandle(sentPixNoticeWorkflowId(idEnvio)).result();
  expect(result).toEqual({ outcome: 'RELEASED', credited: 0 });

  const after = await stack.api('GET', `/sellers/saques/${withdrawalId}`, { creds: m });
  expect(after.body).toMatchObject({
    status: 'FAILED',
    providerEndToEndId: null,
    failureReason: refined.failureReason,
    processedAt: refined.processedAt,
  });
  expect(await ledgerMovements(`withdrawal-complete:${withdrawalId}`)).toEqual([]);
  expect(await ledgerMovements(`sent-pix-returned:${withdrawalId}:%`)).toEqual([]);
  expect(await available(m)).toBe(before);
  expect(await reserved(m)).toBe(0);
  await expectOneSendEach([withdrawalId]);

  // A notice about a send that is not ours: 200 (Efí stops retrying), ignored, no run started.
  const strange = await notify({
    pix: [
      {
        endToEndId: 'E12345678202501011200ForgedOther',
        chave: stack.workerEnv.PIX_RECEIVING_KEY,
        tipo: 'SOLICITACAO',
        status: 'REALIZADO',
        valor: '100.00',
        horario: new Date().toISOString(),
        gnExtras: { idEnvio: 'NaoNossoEnvio123' },
      },
    ],
  });
  expect(strange).toEqual({
    status: 200,
    body: { received: true, outcomes: [{ idEnvio: 'NaoNossoEnvio123', outcome: 'IGNORED' }] },
  });
  expect(await noticeStarted('NaoNossoEnvio123')).toBe(false);
  expect(await available(m)).toBe(before);
  await assertLedgerInvariant(stack.sequelize);
});

it('a webhook that never comes: the adapter reads each outcome itself', async () => {
  const m = await merchant();
  await fundByPaidCharge(stack, m, 100_000);
  const before = await available(m);

  const pause = (paused: boolean) =>
    fetch(`${stack.sandboxUrl}/sandbox/efi/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ paused }),
    });
  expect((await pause(true)).status).toBe(200);
  try {
    expect((await enviados()).webhooksPaused).toBe(true);
    const withdrawalId = await withdraw(m, 7_000);
    // Item 0 to an "invalid…" key: NAO_REALIZADO (AC03) at Efí; the others REALIZADO.
    const batchId = await payoutBatch(m, items(4, { amountCents: 1_500, failEvery: 4 }));

    expect((await withdrawalEnds(m, withdrawalId)).status).toBe('COMPLETED');
    const batch = await waitForBatchEnd(stack, m, batchId, 120_000);
    expect(batch).toMatchObject({ status: 'COMPLETED_WITH_FAILURES', paidItems: 3, failedItems: 1 });

    const rows = await PayoutItem.findAll({ where: { batchId } });
    const ids = [withdrawalId, ...rows.map((r) => r.id)];
    const sends = await expectOneSendEach(ids);
    for (const r of rows) {
      const invalid = r.pixKey.startsWith('invalid');
      expect({ key: r.pixKey, status: r.status }).toEqual({ key: r.pixKey, status: invalid ? 'FAILED' : 'PAID' });
      expect(sends.get(r.id)!.status).toBe(invalid ? 'NAO_REALIZADO' : 'REALIZADO');
    }
    // No notice came, so none of these was ever followed: the outcomes were the adapter's reads.
    for (const id of ids) expect(await noticeStarted(idEnvioFor(id))).toBe(false);
    expect(await available(m)).toBe(before - (7_000 + WITHDRAWAL_FEE) - 3 * (1_500 + PAYOUT_FEE));
    expect(await reserved(m)).toBe(0);
    await assertLedgerInvariant(stack.sequelize);
  } finally {
    await pause(false);
  }
});

it('a sent Pix returned by its recipient is credited back once per return, never beyond', async () => {
  const m = await merchant();
  await fundByPaidCharge(stack, m, 50_000);
  const before = await available(m);
  const withdrawalId = await withdraw(m, 10_000);
  expect((await withdrawalEnds(m, withdrawalId)).status).toBe('COMPLETED');
  const afterSend = before - (10_000 + WITHDRAWAL_FEE);
  expect(await available(m)).toBe(afterSend);
  const idEnvio = idEnvioFor(withdrawalId);
  // The settlement's notice (the sandbox POSTs it when the send settles) reported no return and
  // no reason: answered without a run, the send being settled here or its workflow running.
  await noticeDelivered(idEnvio);
  expect(await noticeStarted(idEnvio)).toBe(false);
  // The same kind of notice now that the send is settled here: answered at once, still no run.
  expect(await notify({ pix: [madeNotice(idEnvio)] })).toEqual({
    status: 200,
    body: { received: true, outcomes: [{ idEnvio, outcome: 'SENT_PIX_SETTLED' }] },
  });
  expect(await noticeStarted(idEnvio)).toBe(false);

  const giveBack = (amountCents: number) =>
    fetch(`${stack.sandboxUrl}/sandbox/efi/enviados/${idEnvio}/devolucao`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amountCents }),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));

  const first = await giveBack(3_000);
  expect(first.status).toBe(201);
  await waitFor(async () => (await available(m)) === afterSend + 3_000, 'the first return to be credited', 90_000);
  await noticeAtRest(idEnvio);
  expect(await ledgerMovements(`sent-pix-returned:${withdrawalId}:%`)).toEqual([
    { key: `sent-pix-returned:${withdrawalId}:${first.body.devolucao.id}`, cents: 3_000 },
  ]);

  // The same notice again: read, and nothing more credited.
  const [sent] = (await enviados()).enviados.filter((e) => e.idEnvio === idEnvio);
  expect(sent.devolucoes).toHaveLength(1);
  const replayed = await notify({
    pix: [
      {
        endToEndId: sent.endToEndId,
        chave: sent.chave,
        tipo: 'SOLICITACAO',
        status: sent.status,
        valor: sent.valor,
        horario: sent.horario.liquidacao,
        gnExtras: { idEnvio },
        devolucoes: sent.devolucoes,
      },
    ],
  });
  expect(replayed).toEqual({
    status: 200,
    body: { received: true, outcomes: [{ idEnvio, outcome: 'SENT_PIX_FOLLOWED' }] },
  });
  expect(await stack.temporal.workflow.getHandle(sentPixNoticeWorkflowId(idEnvio)).result()).toEqual({
    outcome: 'RETURN_CREDITED',
    credited: 0,
  });
  expect(await available(m)).toBe(afterSend + 3_000);

  // A second, partial return: credited once more.
  const second = await giveBack(2_000);
  expect(second.status).toBe(201);
  await waitFor(async () => (await available(m)) === afterSend + 5_000, 'the second return to be credited', 90_000);
  await noticeAtRest(idEnvio);

  // Beyond what was sent (10 000, 5 000 returned): refused by Efí, nothing recorded.
  const beyond = await giveBack(5_001);
  expect(beyond.status).toBe(409);
  expect(beyond.body).toMatchObject({ error: { code: 'RETURN_EXCEEDS_SEND' } });

  expect(await ledgerMovements(`sent-pix-returned:${withdrawalId}:%`)).toEqual(
    byKey([
      { key: `sent-pix-returned:${withdrawalId}:${first.body.devolucao.id}`, cents: 3_000 },
      { key: `sent-pix-returned:${withdrawalId}:${second.body.devolucao.id}`, cents: 2_000 },
    ]),
  );
  expect(await available(m)).toBe(afterSend + 5_000);
  expect(await reserved(m)).toBe(0);
  expect((await stack.api('GET', `/sellers/saques/${withdrawalId}`, { creds: m })).body.status).toBe('COMPLETED');
  await expectOneSendEach([withdrawalId]);
  await assertLedgerInvariant(stack.sequelize);
});
