/**
 * Boleto charges of the application API over HTTP against the real stack (sandbox provider over
 * HTTP, worker, PostgreSQL, Temporal): create → digits pass independent validators → pay in the
 * sandbox (by barcode, by the hybrid boleto's Pix, late and under-paid) → PAID with payer data and
 * a balanced ledger; the PDF read back by poppler and zbar; expiry closes the boleto at the provider.
 */
import { execFileSync } from 'node:child_process';
import { runTool } from '../support/externalTools';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isValidBoleto } from '@brazilian-utils/brazilian-utils';
import { boletoBancarioCodigoBarras, boletoBancarioLinhaDigitavel } from 'boleto-brasileiro-validator';
import { QueryTypes } from 'sequelize';
import { HttpPixProvider } from '../../activities/provider/httpPixProvider';
import { formatBrl, formatDigitableLine } from '../../core/boletos/pdf/format';
import { accounts } from '../../core/ledger/accounts';
import type { AppClient } from '../support/appClient';
import { waitFor } from '../support/env';
import { sharedIntegrationStack, type SharedStack } from '../support/sharedStack';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { signedInMerchant } from '../support/signedIn';

jest.setTimeout(150_000);

const root = path.resolve(__dirname, '../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'boleto-charges-'));
let stack: SharedStack;
let provider: HttpPixProvider;
const PAYER = { name: 'Bia Souza', taxId: '529.982.247-25', email: 'bia@example.com' };

beforeAll(async () => {
  execFileSync('bash', [path.join(root, 'scripts/lib/debianTools.sh'), '--ensure'], {
    stdio: 'inherit',
    timeout: 300_000,
  });
  stack = await sharedIntegrationStack();
  provider = new HttpPixProvider({
    baseUrl: stack.sandboxUrl,
    apiKey: stack.workerEnv.PROVIDER_API_KEY,
    timeoutMs: 5_000,
  });
}, 400_000);

afterAll(async () => {
  await stack?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

afterEach(async () => {
  await assertLedgerInvariant(stack.sequelize);
});

const owner = () => signedInMerchant(stack, { emailPrefix: 'boleto', name: 'Loja Boleto' });

const key = () => ({ 'x-idempotency-key': `boleto-${crypto.randomUUID()}` });

async function createBoleto(client: AppClient, merchantId: string, extra: Record<string, unknown> = {}) {
  const res = await client.call('POST', '/charges', {
    body: { merchantId, amountCents: 10_000, method: 'BOLETO', payer: PAYER, description: 'Mensalidade', ...extra },
    headers: key(),
  });
  expect(res.status).toBe(201);
  return res.body;
}

async function sandboxPay(chargeId: string, body: Record<string, unknown> = {}) {
  const res = await fetch(`${stack.sandboxUrl}/sandbox/boletos/${chargeId}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function readWhen(client: AppClient, id: string, status: string) {
  return waitFor(async () => {
    const read = await client.call('GET', `/charges/${id}`);
    return read.body.status === status ? read.body : undefined;
  }, `charge ${status}`);
}

const run = (cmd: string, args: string[]) => runTool(cmd, args);

it('BOLETO needs a payer (400 naming payer); boleto terms only with BOLETO', async () => {
  const { client, merchantId } = await owner();
  const noPayer = await client.call('POST', '/charges', {
    body: { merchantId, amountCents: 500, method: 'BOLETO' },
    headers: key(),
  });
  expect(noPayer.status).toBe(400);
  expect(noPayer.body.error.details.fields).toEqual([{ field: 'payer', message: expect.any(String) }]);
  const termsOnPix = await client.call('POST', '/charges', {
    body: { merchantId, amountCents: 500, boleto: { graceDays: 1 } },
    headers: key(),
  });
  expect(termsOnPix.status).toBe(400);
  expect(termsOnPix.body.error.details.fields[0].field).toBe('boleto');
  const badTerms = await client.call('POST', '/charges', {
    body: { merchantId, amountCents: 500, method: 'BOLETO', payer: PAYER, boleto: { finePercentBps: 5_000 } },
    headers: key(),
  });
  expect(badTerms.status).toBe(400);
});

it('creates a hybrid boleto, pays it by barcode, reads it PAID with payer data; the PDF holds the line, amount and barcode', async () => {
  const { client, merchantId } = await owner();
  const charge = await createBoleto(client, merchantId, {
    boleto: { finePercentBps: 200, monthlyInterestBps: 100, graceDays: 2 },
  });
  expect(charge).toMatchObject({ method: 'BOLETO', status: 'PENDING', amountCents: 10_000 });
  expect(charge.boleto).toMatchObject({
    pdfUrl: `${stack.apiUrl}/charges/${charge.id}/boleto/pdf`,
    expiresAt: charge.expiresAt,
    payment: null,
  });
  expect(charge.boleto.barcode).toMatch(/^\d{44}$/);
  expect(charge.boleto.digitableLine).toMatch(/^\d{47}$/);
  // Validators we did not write.
  expect(isValidBoleto(charge.boleto.digitableLine)).toBe(true);
  expect(boletoBancarioCodigoBarras(charge.boleto.barcode)).toBe(true);
  expect(boletoBancarioLinhaDigitavel(charge.boleto.digitableLine)).toBe(true);
  // Hybrid: the same charge carries the boleto's Pix BR Code.
  expect(charge.pix.copyPaste).toMatch(/^000201/);

  const pdfRes = await fetch(charge.boleto.pdfUrl, { headers: { authorization: `Bearer ${client.accessToken}` } });
  expect(pdfRes.status).toBe(200);
  expect(pdfRes.headers.get('content-type')).toBe('application/pdf');
  const pdf = path.join(dir, `${charge.id}.pdf`);
  fs.writeFileSync(pdf, Buffer.from(await pdfRes.arrayBuffer()));
  const text = await run('pdftotext', ['-layout', pdf, '-']);
  expect(text).toContain(formatDigitableLine(charge.boleto.digitableLine));
  expect(text).toContain(formatBrl(10_000));
  expect(text).toContain('Loja Boleto');
  expect(text).toContain('Bia Souza');
  expect(text).toContain('multa de 2,00%');
  expect(text).toContain('juros de mora de 1,00% ao mês');
  await run('pdftoppm', ['-r', '300', '-png', '-f', '1', '-l', '1', pdf, pdf.replace(/\.pdf$/, '')]);
  const scanned = (
    await run('zbarimg', ['--raw', '-q', '-Sdisable', '-Si25.enable', `${pdf.replace(/\.pdf$/, '')}-1.png`])
  )
    .split('\n')
    .filter(Boolean);
  expect(scanned).toContain(charge.boleto.barcode);

  expect((await sandboxPay(charge.id)).status).toBe(200); // via BOLETO: by barcode
  const paid = await readWhen(client, charge.id, 'PAID');
  expect(paid.boleto.payment).toEqual({
    amountCents: 10_000,
    via: 'BOLETO',
    late: false,
    underpaid: false,
    overpaid: false,
  });
  // Payer data: on the seller API's view of the same charge.
  const credential = await client.call('POST', '/dashboard/credentials', {
    body: { merchantId, name: 'reader', scopes: ['charges:read'] },
  });
  const seller = await stack.api('GET', `/sellers/pix/${charge.id}`, {
    creds: { merchantId, clientId: credential.body.clientId, clientSecret: credential.body.clientSecret },
  });
  expect(seller.body.status).toBe('PAID');
  expect(seller.body.payer).toMatchObject({ name: expect.any(String) });
  const fee = (
    await stack.sequelize.query<{ fee_cents: string }>(`SELECT fee_cents FROM charges WHERE id = :id`, {
      replacements: { id: charge.id },
      type: QueryTypes.SELECT,
    })
  )[0];
  expect(await balance(stack.sequelize, accounts.merchantAvailable(merchantId))).toBe(10_000 - Number(fee.fee_cents));
  // Paid: its Pix is closed at the provider.
  const atProvider = await provider.findBoletoByReference(charge.id);
  expect(atProvider?.status).toBe('PAID');
  expect(atProvider?.pix.status).toBe('CLOSED');
});

it('a hybrid boleto paid by its Pix settles the charge, and the barcode is closed at the provider', async () => {
  const { client, merchantId } = await owner();
  const charge = await createBoleto(client, merchantId);
  expect((await sandboxPay(charge.id, { via: 'PIX' })).status).toBe(200);
  const paid = await readWhen(client, charge.id, 'PAID');
  expect(paid.boleto.payment).toMatchObject({ via: 'PIX', amountCents: 10_000 });
  const again = await sandboxPay(charge.id);
  expect(again.status).toBe(409);
  expect(again.body.error.code).toBe('BOLETO_NOT_PAYABLE');
  expect((await provider.findBoletoByReference(charge.id))?.payment?.via).toBe('PIX');
});

it('a late, under-paid boleto is settled for what was paid and flagged (fee scaled to the paid amount)', async () => {
  const { client, merchantId } = await owner();
  const charge = await createBoleto(client, merchantId, { boleto: { finePercentBps: 200, monthlyInterestBps: 100 } });
  const due = charge.expiresAt as string;
  const lateDay = new Date(Date.parse(due) + 5 * 86_400_000).toISOString().slice(0, 10);
  const payRes = await sandboxPay(charge.id, { paidAt: lateDay, amountCents: 9_000 });
  expect(payRes.status).toBe(200);
  expect(payRes.body.payment).toMatchObject({ late: true, amountMismatch: 'UNDERPAID' });
  const paid = await readWhen(client, charge.id, 'PAID');
  expect(paid.boleto.payment).toEqual({
    amountCents: 9_000,
    via: 'BOLETO',
    late: true,
    underpaid: true,
    overpaid: false,
  });
  const row = (
    await stack.sequelize.query<{ fee_cents: string; boleto_paid_fee_cents: string }>(
      `SELECT fee_cents, boleto_paid_fee_cents FROM charges WHERE id = :id`,
      {
        replacements: { id: charge.id },
        type: QueryTypes.SELECT,
      },
    )
  )[0];
  expect(Number(row.boleto_paid_fee_cents)).toBe(Math.round((Number(row.fee_cents) * 9_000) / 10_000));
  expect(await balance(stack.sequelize, accounts.merchantAvailable(merchantId))).toBe(
    9_000 - Number(row.boleto_paid_fee_cents),
  );
});

it('PDF: 409 for a Pix charge, 404 for a stranger', async () => {
  const { client, merchantId } = await owner();
  const pix = await client.call('POST', '/charges', { body: { merchantId, amountCents: 700 }, headers: key() });
  const notBoleto = await client.call('GET', `/charges/${pix.body.id}/boleto/pdf`);
  expect(notBoleto.status).toBe(409);
  expect(notBoleto.body.error.code).toBe('CHARGE_NOT_BOLETO');
  const boleto = await createBoleto(client, merchantId);
  const stranger = await owner();
  const other = await stranger.client.call('GET', `/charges/${boleto.id}/boleto/pdf`);
  expect(other.status).toBe(404);
  expect(other.body.error.code).toBe('CHARGE_NOT_FOUND');
});

it('an unpaid boleto expires at its due time (no grace days): EXPIRED, and cancelled at the provider', async () => {
  const { client, merchantId } = await owner();
  const charge = await createBoleto(client, merchantId, { expiresAt: new Date(Date.now() + 62_000).toISOString() });
  await waitFor(
    async () => {
      const read = await client.call('GET', `/charges/${charge.id}`);
      return read.body.status === 'EXPIRED' ? read.body : undefined;
    },
    'boleto charge EXPIRED',
    110_000,
  );
  const atProvider = await provider.findBoletoByReference(charge.id);
  expect(atProvider?.status).toBe('CANCELLED');
  expect(atProvider?.pix.status).toBe('CLOSED');
  expect((await sandboxPay(charge.id)).status).toBe(409);
});
