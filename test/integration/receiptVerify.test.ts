/**
 * A receipt end to end on the real stack: a Pix charge paid at the sandbox by a payer whose name
 * has accents → its facts loaded from the database → the PDF rendered → read back by programs we
 * did not write (poppler's pdftotext, pdftoppm; zbar's zbarimg) → the QR's URL called over HTTP
 * says authentic with the same facts, as JSON and as HTML; a tampered or forged code does not.
 */
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { runTool } from '../support/externalTools';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { storedReceiptFacts } from '../../api/receipts/facts';
import { DEFAULT_PLATFORM_INSTITUTION_NAME } from '../../config';
import { renderReceiptPdf } from '../../core/receipts/pdf/renderReceiptPdf';
import { createVerificationCode, receiptKeyFor, receiptVerifyUrl } from '../../core/receipts/verificationCode';
import type { ReceiptFacts } from '../../core/receipts/facts';
import { waitFor } from '../support/env';
import { sharedIntegrationStack, type SharedStack } from '../support/sharedStack';
import { signedInMerchant } from '../support/signedIn';

jest.setTimeout(180_000);

const root = path.resolve(__dirname, '../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'receipt-'));
let stack: SharedStack;
let facts: ReceiptFacts;
let key: Buffer;

const run = (cmd: string, args: string[]) => runTool(cmd, args);

const PAYER = {
  name: 'Conceição Ação da Silva',
  document: '52998224725',
  documentType: 'CPF',
  institution: 'Banco Sandbox',
  ispb: '99999999',
  agency: '0001',
  account: '7654321-0',
};

beforeAll(async () => {
  execFileSync('bash', [path.join(root, 'scripts/lib/debianTools.sh'), '--ensure'], {
    stdio: 'inherit',
    timeout: 300_000,
  });
  stack = await sharedIntegrationStack();
  key = receiptKeyFor({ credentialsEncryptionKey: stack.encryptionKey });
  const { client, merchantId } = await signedInMerchant(stack, {
    emailPrefix: 'receipt',
    name: 'Loja Exemplo Comércio Ltda',
  });
  const created = await client.call('POST', '/charges', {
    body: { merchantId, amountCents: 123456, description: 'Inscrição no curso' },
    headers: { 'x-idempotency-key': `receipt-${crypto.randomUUID()}` },
  });
  expect(created.status).toBe(201);
  expect((await stack.pay(created.body.id, PAYER)).status).toBe(200);
  await waitFor(
    async () => (await client.call('GET', `/charges/${created.body.id}`)).body.status === 'PAID',
    'charge PAID',
  );
  facts = (await storedReceiptFacts(DEFAULT_PLATFORM_INSTITUTION_NAME)('CHARGE', created.body.id))!;
}, 400_000);

afterAll(async () => {
  await stack?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const verify = (url: string, accept = 'application/json') => fetch(url, { headers: { accept } });

test('the loaded facts are the paid charge, its payer and the merchant', () => {
  expect(facts).toMatchObject({
    kind: 'CHARGE',
    amountCents: 123456,
    feeCents: null,
    endToEndId: expect.stringMatching(/^E99999999\d{12}[A-Za-z0-9]{11}$/),
    description: 'Inscrição no curso',
    payer: {
      name: PAYER.name,
      document: PAYER.document,
      institution: 'Banco Sandbox',
      ispb: '99999999',
      agency: '0001',
      account: '7654321-0',
    },
    receiver: { name: 'Loja Exemplo Comércio Ltda', document: '11222333000181' },
    refunds: [],
  });
});

test('PDF → pdftotext holds the amount, endToEndId and masked parties with accents → QR is the verify URL → authentic, JSON and HTML', async () => {
  const url = receiptVerifyUrl(stack.apiUrl, createVerificationCode(facts, key));
  const pdf = path.join(dir, 'receipt.pdf');
  fs.writeFileSync(pdf, await renderReceiptPdf(facts, { verifyUrl: url }));

  expect(await run('pdfinfo', [pdf])).toMatch(/^Pages:\s+1$/m);
  expect(await run('pdffonts', [pdf])).toMatch(/DejaVuSans\s+CID TrueType\s+Identity-H\s+yes/);
  const text = await run('pdftotext', ['-layout', pdf, '-']);
  for (const s of [
    'Comprovante de Pix',
    'R$ 1.234,56',
    facts.endToEndId!,
    'Conceição Ação da Silva',
    '***.982.247-**',
    'Loja Exemplo Comércio Ltda',
    '11.222.333/0001-81',
    'Inscrição no curso',
    'Valide este comprovante',
    '*****21-0',
  ]) {
    expect(text).toContain(s);
  }
  expect(text).not.toContain(PAYER.document);
  expect(text).not.toContain('7654321-0');

  await run('pdftoppm', ['-r', '200', '-png', '-f', '1', '-l', '1', pdf, path.join(dir, 'page')]);
  const decoded = (await run('zbarimg', ['--raw', '-q', '-Sdisable', '-Sqrcode.enable', path.join(dir, 'page-1.png')]))
    .split('\n')
    .filter(Boolean);
  expect(decoded).toEqual([url]);

  const json = await verify(decoded[0]);
  expect(json.status).toBe(200);
  expect(json.headers.get('cache-control')).toBe('no-store');
  expect(await json.json()).toEqual({
    authentic: true,
    kind: 'CHARGE',
    amountCents: 123456,
    occurredAt: facts.occurredAt,
    endToEndId: facts.endToEndId,
    payer: { name: 'Conceição Ação da Silva', document: '***.982.247-**' },
    receiver: { name: 'Loja Exemplo Comércio Ltda', document: '11.222.333/0001-81' },
    refunds: [],
  });

  const html = await verify(decoded[0], 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8');
  expect(html.status).toBe(200);
  expect(html.headers.get('content-type')).toMatch(/^text\/html/);
  expect(html.headers.get('content-security-policy')).toContain("default-src 'none'");
  const page = await html.text();
  expect(page).toContain('Comprovante autêntico');
  expect(page).toContain('R$ 1.234,56');
  expect(page).toContain('Conceição Ação da Silva - ***.982.247-**');
  expect(page).toContain(facts.endToEndId!);
});

test('a tampered, forged, foreign or malformed code is not authentic, with nothing else said', async () => {
  const code = createVerificationCode(facts, key);
  const raw = Buffer.from(code, 'base64url');
  raw[20] ^= 0x04;
  const forgedAmount = createVerificationCode({ ...facts, amountCents: 999999 }, key);
  const otherKey = createVerificationCode(facts, crypto.randomBytes(32));
  const unknownDoc = createVerificationCode({ ...facts, documentId: crypto.randomUUID() }, key);
  const asWithdrawal = createVerificationCode({ ...facts, kind: 'WITHDRAWAL' }, key);
  const queries = [
    raw.toString('base64url'),
    forgedAmount,
    otherKey,
    unknownDoc,
    asWithdrawal,
    'not-a-code',
    '%00%ff',
    `${code}&code=${code}`,
    '',
  ];
  for (const q of queries) {
    const res = await verify(`${stack.apiUrl}/receipts/verify?code=${q}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ authentic: false });
  }
  const missing = await verify(`${stack.apiUrl}/receipts/verify`);
  expect(await missing.json()).toEqual({ authentic: false });
  const page = await (await verify(`${stack.apiUrl}/receipts/verify?code=${forgedAmount}`, 'text/html')).text();
  expect(page).toContain('Comprovante não autêntico');
  expect(page).not.toContain('Conceição');
});

test('facts changed after the receipt was issued → the old receipt is no longer authentic', async () => {
  const url = receiptVerifyUrl(stack.apiUrl, createVerificationCode(facts, key));
  expect(((await (await verify(url)).json()) as { authentic: boolean }).authentic).toBe(true);
  await stack.sequelize.query(
    `UPDATE charges SET payer_snapshot = jsonb_set(payer_snapshot, '{name}', '"Outra Pessoa"') WHERE id = :id`,
    { replacements: { id: facts.documentId } },
  );
  try {
    expect(await (await verify(url)).json()).toEqual({ authentic: false });
  } finally {
    await stack.sequelize.query(
      `UPDATE charges SET payer_snapshot = jsonb_set(payer_snapshot, '{name}', to_jsonb(:name::text)) WHERE id = :id`,
      { replacements: { id: facts.documentId, name: PAYER.name } },
    );
  }
  expect(((await (await verify(url)).json()) as { authentic: boolean }).authentic).toBe(true);
});
