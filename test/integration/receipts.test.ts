/**
 * Receipt downloads over HTTP against the real stack (PostgreSQL, Temporal, worker, sandbox
 * provider): the partner routes /v1/receipts/* (client credentials + request signature) and the
 * application route GET /charges/{id}/receipt (bearer). Money moves the real way: charges paid by
 * the sandbox payer, withdrawals and payout items settled by the sandbox. The PDFs are read back
 * with poppler's pdftotext, a program we did not write.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { runTool } from '../support/externalTools';
import { QueryTypes } from 'sequelize';
import { signedRequestHeaders } from '../../core/signatures/requestSignature';
import type { MerchantCredentials } from '../../db/identity/merchantAdmin';
import { Charge, MerchantMember } from '../../db/models';
import { receiptRenderCount } from '../../api/receipts/receiptDocuments';
import { AppClient, uniqueEmail } from '../support/appClient';
import { waitFor } from '../support/env';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { fundByPaidCharge, items, setFaults, signedCall, waitForBatchEnd } from '../support/payouts';

jest.setTimeout(180_000);

const root = path.resolve(__dirname, '..', '..');
const PASSWORD = 'correct horse battery';

let stack: IntegrationStack;
let merchant: MerchantCredentials;
let other: MerchantCredentials;

beforeAll(async () => {
  execFileSync('bash', [path.join(root, 'scripts/lib/debianTools.sh'), '--ensure'], {
    stdio: 'inherit',
    timeout: 300_000,
  });
  // A stack of its own, not the worker's shared one (test/support/sharedStack.ts): it reads the API's in-process render count.
  stack = await startIntegrationStack();
  const pixKey = () => `financeiro+${crypto.randomUUID().slice(0, 8)}@loja-recibo.com.br`;
  merchant = await stack.createMerchant({
    name: 'Loja Recibo',
    payoutsEnabled: true,
    document: '11144477735',
    pixKeyType: 'EMAIL',
    pixKey: pixKey(),
  });
  other = await stack.createMerchant({
    name: 'Outra Loja',
    payoutsEnabled: true,
    document: '52998224725',
    pixKeyType: 'EMAIL',
    pixKey: pixKey(),
  });
});

afterAll(async () => {
  await stack?.stop();
});

let lastTimestamp = 0;

interface Download {
  status: number;
  headers: Headers;
  bytes: Buffer;
  error: { code: string; message: string } | undefined;
}

/** A GET as a partner sends it: credentials and a signature over `signPath` (default: the path as sent). */
async function download(
  creds: MerchantCredentials,
  urlPath: string,
  opts: { signPath?: string; unsigned?: boolean; noCredentials?: boolean } = {},
): Promise<Download> {
  const ts = (lastTimestamp = Math.max(Date.now(), lastTimestamp + 1));
  let headers: Record<string, string> = signedRequestHeaders({
    ...creds,
    method: 'GET',
    path: opts.signPath ?? urlPath,
    rawBody: '',
    timestampMs: ts,
  });
  if (opts.unsigned) headers = { 'x-client-id': creds.clientId, 'x-client-secret': creds.clientSecret };
  if (opts.noCredentials) headers = {};
  const res = await fetch(`${stack.apiUrl}${urlPath}`, { headers });
  const bytes = Buffer.from(await res.arrayBuffer());
  const json = res.headers.get('content-type')?.startsWith('application/json')
    ? (JSON.parse(bytes.toString('utf8')) as { error?: Download['error'] })
    : undefined;
  return { status: res.status, headers: res.headers, bytes, error: json?.error };
}

function expectPdf(res: Download, filename: string): void {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/pdf');
  expect(res.headers.get('content-disposition')).toBe(`inline; filename=${filename}`);
  expect(res.headers.get('cache-control')).toBe('private, no-store');
  expect(res.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
}

function expectError(res: Download, status: number, code: string): void {
  expect({ status: res.status, code: res.error?.code }).toEqual({ status, code });
}

/** The PDF's text as poppler reads it (spaces normalised: amounts may carry a no-break space). */
async function pdfText(pdf: Buffer): Promise<string> {
  return (await runTool('pdftotext', ['-layout', '-', '-'], { input: pdf })).replace(/\s+/g, ' ');
}

async function storedReceipts(documentId: string): Promise<number> {
  const rows = await stack.sequelize.query<{ n: string }>(
    'SELECT count(*) AS n FROM receipt_documents WHERE document_id = $1',
    { bind: [documentId], type: QueryTypes.SELECT },
  );
  return Number(rows[0].n);
}

async function paidCharge(creds: MerchantCredentials, amountCents: number, externalRef?: string): Promise<Charge> {
  const created = await stack.api('POST', '/sellers/pix', {
    creds,
    body: { amountCents, description: 'Pedido com acentuação', ...(externalRef ? { externalRef } : {}) },
  });
  expect(created.status).toBe(201);
  expect((await stack.pay(created.body.id)).status).toBe(200);
  await waitFor(
    async () => (await stack.api('GET', `/sellers/pix/${created.body.id}`, { creds })).body?.status === 'PAID',
    'the charge to be paid',
  );
  return (await Charge.findByPk(created.body.id)) as Charge;
}

it('a charge: 409 before payment; after it, every id kind on both paths answers the same PDF, rendered once, with the amount and endToEndId', async () => {
  const externalRef = `pedido-${crypto.randomUUID().slice(0, 8)}`;
  const created = await stack.api('POST', '/sellers/pix', {
    creds: merchant,
    body: { amountCents: 12_345, externalRef, description: 'Pedido com acentuação' },
  });
  expect(created.status).toBe(201);
  const chargeId: string = created.body.id;

  const early = await download(merchant, `/v1/receipts/transactions/${chargeId}`);
  expectError(early, 409, 'RECEIPT_UNAVAILABLE');
  expectError(await download(merchant, `/v1/receipts/charges/${externalRef}`), 409, 'RECEIPT_UNAVAILABLE');

  expect((await stack.pay(chargeId)).status).toBe(200);
  await waitFor(async () => (await Charge.findByPk(chargeId))?.status === 'PAID', 'the charge to be paid');
  const charge = (await Charge.findByPk(chargeId)) as Charge;
  const ids = {
    id: charge.id,
    externalRef,
    providerChargeId: charge.providerChargeId,
    pixTxid: charge.pixTxid,
    endToEndId: charge.endToEndId,
  };
  for (const [kind, value] of Object.entries(ids))
    expect({ kind, value: typeof value === 'string' && value.length > 0 }).toEqual({ kind, value: true });

  const rendersBefore = receiptRenderCount();
  const answers: Buffer[] = [];
  for (const prefix of ['transactions', 'charges']) {
    for (const id of Object.values(ids) as string[]) {
      const res = await download(merchant, `/v1/receipts/${prefix}/${id}`);
      expectPdf(res, `comprovante-transacao-${id}.pdf`);
      answers.push(res.bytes);
    }
  }
  // One render for ten downloads, one stored row, the same bytes every time.
  expect(receiptRenderCount() - rendersBefore).toBe(1);
  expect(await storedReceipts(chargeId)).toBe(1);
  for (const bytes of answers) expect(bytes.equals(answers[0])).toBe(true);

  const text = await pdfText(answers[0]);
  expect(text).toContain('123,45');
  expect(text).toContain(charge.endToEndId as string);
  expect(text).toContain('Comprovante de Pix');
  expect(text).toContain('Loja Recibo');
});

it('concurrent first downloads of a receipt render it once and answer identical bytes', async () => {
  const charge = await paidCharge(merchant, 777);
  const before = receiptRenderCount();
  const answers = await Promise.all(
    Array.from({ length: 8 }, () => download(merchant, `/v1/receipts/transactions/${charge.id}`)),
  );
  for (const res of answers) expectPdf(res, `comprovante-transacao-${charge.id}.pdf`);
  expect(receiptRenderCount() - before).toBe(1);
  expect(answers.every((a) => a.bytes.equals(answers[0].bytes))).toBe(true);
  expect(await storedReceipts(charge.id)).toBe(1);
});

it('requires credentials and a signature over the exact path; refuses bad ids; another merchant gets 404', async () => {
  const charge = await paidCharge(merchant, 1_000, `ref-${crypto.randomUUID().slice(0, 8)}`);
  const url = `/v1/receipts/transactions/${charge.id}`;
  expectError(await download(merchant, url, { noCredentials: true }), 401, 'CREDENTIALS_REQUIRED');
  expectError(await download(merchant, url, { unsigned: true }), 401, 'INVALID_SIGNATURE');
  // A valid signature, but over another path (another id, or the alias) is refused.
  expectError(
    await download(merchant, url, { signPath: `/v1/receipts/transactions/${charge.externalRef}` }),
    401,
    'INVALID_SIGNATURE',
  );
  expectError(
    await download(merchant, url, { signPath: `/v1/receipts/charges/${charge.id}` }),
    401,
    'INVALID_SIGNATURE',
  );

  // Another merchant, signing correctly, finds none of them: 404 with nothing of the charge.
  for (const id of [
    charge.id,
    charge.externalRef,
    charge.providerChargeId,
    charge.pixTxid,
    charge.endToEndId,
  ] as string[]) {
    const res = await download(other, `/v1/receipts/transactions/${id}`);
    expectError(res, 404, 'NOT_FOUND');
    expect(res.bytes.toString('utf8')).not.toContain(merchant.merchantId);
  }
  expectError(await download(merchant, `/v1/receipts/transactions/${crypto.randomUUID()}`), 404, 'NOT_FOUND');
  expectError(await download(merchant, '/v1/receipts/transactions/no-such-ref'), 404, 'NOT_FOUND');

  // Invalid identifiers: 400 VALIDATION_ERROR (a space, a quote, too long; a withdrawal id that is no UUID).
  expectError(await download(merchant, '/v1/receipts/transactions/bad%20id'), 400, 'VALIDATION_ERROR');
  expectError(await download(merchant, '/v1/receipts/charges/a%22b'), 400, 'VALIDATION_ERROR');
  expectError(await download(merchant, `/v1/receipts/transactions/${'x'.repeat(129)}`), 400, 'VALIDATION_ERROR');
  expectError(await download(merchant, '/v1/receipts/payout-items/not-a-uuid'), 400, 'VALIDATION_ERROR');

  // The read scope of the document's family.
  const withdrawalsOnly = await stack.createMerchant({ name: 'Só saques', scopes: ['withdrawals:read'] });
  const scoped = await download(withdrawalsOnly, `/v1/receipts/transactions/${charge.id}`);
  expectError(scoped, 403, 'INSUFFICIENT_SCOPE');
});

it('a withdrawal: 409 while PROCESSING, the receipt once COMPLETED; another merchant gets 404', async () => {
  await fundByPaidCharge(stack, merchant, 20_000);
  // The provider answers slowly, so the withdrawal is still PROCESSING when we ask.
  await setFaults(stack, { latencyMs: 3_000 });
  let withdrawalId: string;
  try {
    const created = await stack.api('POST', '/sellers/saques', {
      creds: merchant,
      body: { amountCents: 4_321, description: 'Saque semanal' },
      headers: { 'idempotency-key': crypto.randomUUID() },
    });
    expect(created.status).toBe(201);
    withdrawalId = created.body.id;
    expectError(await download(merchant, `/v1/receipts/withdrawals/${withdrawalId}`), 409, 'RECEIPT_UNAVAILABLE');
  } finally {
    await setFaults(stack, null);
  }
  const done = await waitFor(async () => {
    const w = await stack.api('GET', `/sellers/saques/${withdrawalId}`, { creds: merchant });
    return w.body.status !== 'PROCESSING' ? w.body : null;
  }, 'the withdrawal to settle');
  expect(done.status).toBe('COMPLETED');
  const res = await download(merchant, `/v1/receipts/withdrawals/${withdrawalId}`);
  expectPdf(res, `comprovante-saque-${withdrawalId}.pdf`);
  const text = await pdfText(res.bytes);
  expect(text).toContain('43,21');
  expect(text).toContain('Comprovante de saque');
  if (done.providerEndToEndId) expect(text).toContain(done.providerEndToEndId);
  // Another merchant: 404 NOT_FOUND on the receipt and on the read alike.
  expectError(await download(other, `/v1/receipts/withdrawals/${withdrawalId}`), 404, 'NOT_FOUND');
  const read = await stack.api('GET', `/sellers/saques/${withdrawalId}`, { creds: other });
  expect({ status: read.status, code: read.body.error?.code }).toEqual({ status: 404, code: 'NOT_FOUND' });
});

it('a withdrawal receipt takes exactly the ids GET /sellers/saques/{id} takes (1 to 120 characters): an unknown one is 404 NOT_FOUND on both', async () => {
  const answers = async (id: string) => {
    const read = await stack.api('GET', `/sellers/saques/${encodeURIComponent(id)}`, { creds: merchant });
    const receipt = await download(merchant, `/v1/receipts/withdrawals/${encodeURIComponent(id)}`);
    return {
      id: id.slice(0, 20),
      read: [read.status, read.body.error?.code],
      receipt: [receipt.status, receipt.error?.code],
    };
  };
  for (const id of [
    'not-a-uuid',
    'w',
    'x'.repeat(120),
    'saque 2026/11',
    crypto.randomUUID(),
    crypto.randomUUID().toUpperCase(),
  ]) {
    expect(await answers(id)).toEqual({ id: id.slice(0, 20), read: [404, 'NOT_FOUND'], receipt: [404, 'NOT_FOUND'] });
  }
  // Outside the spec's ids (over 120 characters, a control character): 400 on both, each with
  // its spec code (INVALID_WITHDRAWAL_ID on the read; VALIDATION_ERROR, "invalid identifier on
  // receipt download", on the receipt).
  for (const id of ['x'.repeat(121), 'a\u0001b']) {
    expect(await answers(id)).toEqual({
      id: id.slice(0, 20),
      read: [400, 'INVALID_WITHDRAWAL_ID'],
      receipt: [400, 'VALIDATION_ERROR'],
    });
  }
});

it('a payout item: the receipt of a PAID item, 409 for a FAILED one, 404 to another merchant', async () => {
  await fundByPaidCharge(stack, merchant, 20_000);
  const batch = await signedCall(stack, merchant, 'POST', '/v1/payouts/batches', {
    idempotencyKey: crypto.randomUUID(),
    items: items(2, { amountCents: 2_468, failEvery: 2 }),
  });
  expect(batch.status).toBe(201);
  const ended = (await waitForBatchEnd(stack, merchant, batch.body.batchId)) as {
    items: { id: string; status: string; endToEndId: string | null }[];
  };
  const paid = ended.items.find((i) => i.status === 'PAID');
  const failed = ended.items.find((i) => i.status === 'FAILED');
  expect(paid && failed).toBeTruthy();
  const res = await download(merchant, `/v1/receipts/payout-items/${paid!.id}`);
  expectPdf(res, `comprovante-pagamento-${paid!.id}.pdf`);
  const text = await pdfText(res.bytes);
  expect(text).toContain('24,68');
  expect(text).toContain(paid!.endToEndId as string);
  expectError(await download(merchant, `/v1/receipts/payout-items/${failed!.id}`), 409, 'RECEIPT_UNAVAILABLE');
  expectError(await download(other, `/v1/receipts/payout-items/${paid!.id}`), 404, 'NOT_FOUND');
});

it('GET /charges/{id}/receipt: any member with a bearer token gets the same PDF; others 404; unpaid 409', async () => {
  const viewer = new AppClient(stack.apiUrl);
  const email = uniqueEmail('recibo');
  const registered = await viewer.register({ email, password: PASSWORD });
  await MerchantMember.create({ userId: registered.body.id, merchantId: merchant.merchantId, role: 'viewer' });
  expect((await viewer.login(email, PASSWORD)).status).toBe(200);
  const stranger = new AppClient(stack.apiUrl);
  const strangerEmail = uniqueEmail('estranho');
  await stranger.register({ email: strangerEmail, password: PASSWORD });
  await stranger.login(strangerEmail, PASSWORD);

  const charge = await paidCharge(merchant, 5_050);
  const res = await fetch(`${stack.apiUrl}/charges/${charge.id}/receipt`, {
    headers: { authorization: `Bearer ${viewer.accessToken}` },
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  expectPdf(
    { status: res.status, headers: res.headers, bytes, error: undefined },
    `comprovante-transacao-${charge.id}.pdf`,
  );
  expect(await pdfText(bytes)).toContain('50,50');
  // The partner route answers the same stored document.
  expect((await download(merchant, `/v1/receipts/transactions/${charge.id}`)).bytes.equals(bytes)).toBe(true);

  const notMine = await stranger.call('GET', `/charges/${charge.id}/receipt`);
  expect({ status: notMine.status, code: notMine.body.error?.code }).toEqual({ status: 404, code: 'CHARGE_NOT_FOUND' });
  const anonymous = await new AppClient(stack.apiUrl).call('GET', `/charges/${charge.id}/receipt`);
  expect(anonymous.status).toBe(401);
  const pending = await stack.api('POST', '/sellers/pix', { creds: merchant, body: { amountCents: 100 } });
  const unpaid = await viewer.call('GET', `/charges/${pending.body.id}/receipt`);
  expect({ status: unpaid.status, code: unpaid.body.error?.code }).toEqual({
    status: 409,
    code: 'RECEIPT_UNAVAILABLE',
  });
  const bad = await viewer.call('GET', '/charges/not-a-uuid/receipt');
  expect({ status: bad.status, code: bad.body.error?.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
});
