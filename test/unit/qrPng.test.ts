/**
 * The charge's QR image (core/pix/qrPng.ts, our own grayscale rendering of qrcode's matrix) read
 * back by zbarimg (zbar-tools, a decoder we did not write): every BR Code, short and long, decodes
 * to itself, and the file is a 300 × 300 grayscale PNG.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { buildPixBrCode } from '../../core/pix/brcode';
import { qrCodePng, qrCodePngBase64 } from '../../core/pix/qrPng';

const root = path.resolve(__dirname, '../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qr-png-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

beforeAll(() => {
  execFileSync('bash', [path.join(root, 'scripts/lib/debianTools.sh'), '--ensure'], {
    stdio: 'inherit',
    timeout: 300_000,
  });
}, 320_000);

function zbar(...files: string[]): string[] {
  // stderr ignored: zbarimg complains about a missing D-Bus on headless machines.
  const out = execFileSync('zbarimg', ['--quiet', '--raw', '-Sdisable', '-Sqrcode.enable', ...files], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: 60_000,
  });
  return out.split('\n').filter(Boolean);
}

const codes = [
  buildPixBrCode({
    pixKey: '11222333000181',
    merchantName: 'Loja Exemplo',
    merchantCity: 'São Paulo',
    amountCents: 1,
    txid: 'A1B2C3D4E5F6G7H8I9J0K1L2M3',
  }),
  buildPixBrCode({
    pixKey: 'pagamentos@loja-exemplo.com.br',
    merchantName: 'Padaria Pão Quente Ltda',
    merchantCity: 'Rio de Janeiro',
    amountCents: 123456789,
    txid: 'CHARGE0123456789ABCDEFGHIJKLMN',
  }),
  `00020101021226890014br.gov.bcb.pix2567pix.example.com/qr/v2/cobv/${'9d36b84fc70b478fb95c12729b90ca25'}520400005303986540510.005802BR5913Fulano de Tal6008BRASILIA62070503***6304ABCD`,
];

describe('qrCodePng', () => {
  test.each(codes.map((c, i) => [i, c]))('BR Code %i decodes to itself', (i, code) => {
    const file = path.join(dir, `qr-${i}.png`);
    fs.writeFileSync(file, qrCodePng(code));
    expect(zbar(file)).toEqual([code]);
  });

  test('40 BR Codes of every length the gateway issues decode to themselves', () => {
    // Symbols of several sizes and keys of each kind: each must decode to itself.
    const many = Array.from({ length: 40 }, (_, i) =>
      buildPixBrCode({
        pixKey: [crypto.randomUUID(), 'pagamentos@loja-exemplo.com.br', '+5511987654321', '11222333000181'][i % 4],
        merchantName: `Loja Número ${i} de Exemplo`.slice(0, 10 + (i % 16)),
        merchantCity: 'São Paulo',
        amountCents: 1 + i * 987_654,
        txid: crypto
          .randomBytes(20)
          .toString('hex')
          .toUpperCase()
          .slice(0, 26 + (i % 10)),
      }),
    );
    const files = many.map((code, i) => {
      const file = path.join(dir, `many-${i}.png`);
      fs.writeFileSync(file, qrCodePng(code));
      return file;
    });
    // One zbarimg for all: it prints each file's symbol in the order given.
    expect(zbar(...files)).toEqual(many);
  });

  test('a 300 × 300 grayscale PNG, black on white, with a quiet zone', () => {
    const image = PNG.sync.read(qrCodePng(codes[1]));
    expect([image.width, image.height]).toEqual([300, 300]);
    // pngjs reads back as RGBA: the corners (quiet zone) are white, and some pixels are black.
    expect([...image.data.subarray(0, 4)]).toEqual([255, 255, 255, 255]);
    expect(image.data.some((v, k) => k % 4 === 0 && v === 0)).toBe(true);
  });

  test('base64 of the same bytes', async () => {
    expect(await qrCodePngBase64(codes[0])).toBe(qrCodePng(codes[0]).toString('base64'));
  });
});
