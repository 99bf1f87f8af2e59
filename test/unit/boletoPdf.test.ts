/**
 * The boleto PDF, read back by programs we did not write: poppler's pdftotext / pdfinfo / pdftoppm
 * and zbar's zbarimg (Debian packages, installed by scripts/lib/debianTools.sh). The barcode and
 * digitable line fed in are built by test/support/boletoNumbers.ts and confirmed valid by
 * @mrmgomes/boleto-utils, so neither the numbers nor their checks come from the code under test.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hasError, parsePix } from 'pix-utils';
import { buildPixBrCode } from '../../core/pix/brcode';
import { bankCodeWithDigit, formatBrl, formatDigitableLine, isoDateInBrasilia } from '../../core/boletos/pdf/format';
import { renderBoletoPdf, type BoletoPdfInput } from '../../core/boletos/pdf/renderBoletoPdf';
import { buildBoletoNumbers } from '../support/boletoNumbers';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the package ships no types
const boletoUtils = require('@mrmgomes/boleto-utils') as {
  validarBoleto(code: string): {
    sucesso: boolean;
    codigoBarras: string;
    linhaDigitavel: string;
    valor: number;
    vencimentoComNovoFator2025?: Date;
  };
};

// Renders PDFs and runs poppler and zbar on them: seconds of real work, more on a loaded machine
// (the default 5 s hook budget ran out while the suite ran beside other work).
jest.setTimeout(120_000);

const root = path.resolve(__dirname, '../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'boleto-pdf-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function run(cmd: string, args: string[]): string {
  // stderr ignored: zbarimg complains about a missing D-Bus on headless machines.
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 60_000 });
}

beforeAll(() => {
  execFileSync('bash', [path.join(root, 'scripts/lib/debianTools.sh'), '--ensure'], {
    stdio: 'inherit',
    timeout: 300_000,
  });
}, 320_000);

const numbers = buildBoletoNumbers({
  bankCode: '341',
  dueDate: '2026-03-15',
  amountCents: 123456,
  freeField: '1091234567880057123457000',
});
const pixCopyPaste = buildPixBrCode({
  pixKey: '11222333000181',
  merchantName: 'Loja Exemplo',
  merchantCity: 'São Paulo',
  amountCents: 123456,
  txid: 'BOLETO10912345678ABCDEF0123456',
});

const input: BoletoPdfInput = {
  beneficiary: {
    name: 'Loja Exemplo Comércio Ltda',
    document: '11222333000181',
    documentType: 'CNPJ',
    agencyCode: '0001/12345-6',
  },
  payer: {
    name: 'João da Silva Araújo',
    document: '11144477735',
    documentType: 'CPF',
    address: 'Rua das Flores, 123, ap. 45 - Centro\nSão Paulo - SP - CEP 01001-000',
  },
  amountCents: 123456,
  dueDate: '2026-03-15',
  issuedAt: '2026-03-01T13:00:00Z',
  nossoNumero: '109/12345678-8',
  documentNumber: 'PED-1001',
  digitableLine: numbers.digitableLine,
  barcode: numbers.barcode,
  bankCode: '341',
  bankName: 'Banco Sandbox',
  instructions: ['Não receber após 30 dias do vencimento.', 'Pedido 1001 - Loja Exemplo'],
  fineText: 'Após o vencimento, multa de 2,00%.',
  interestText: 'Juros de mora de 1,00% ao mês.',
  pixCopyPaste,
};

async function renderToFile(name: string, data: BoletoPdfInput): Promise<string> {
  const file = path.join(dir, `${name}.pdf`);
  fs.writeFileSync(file, await renderBoletoPdf(data));
  return file;
}

/** zbarimg over a 300 dpi raster of the page, with only the given symbology enabled. */
function scan(pdf: string, symbology: 'i25' | 'qrcode'): string[] {
  const prefix = pdf.replace(/\.pdf$/, '');
  if (!fs.existsSync(`${prefix}-1.png`)) run('pdftoppm', ['-r', '300', '-png', '-f', '1', '-l', '1', pdf, prefix]);
  let out = '';
  try {
    out = run('zbarimg', ['--raw', '-q', '-Sdisable', `-S${symbology}.enable`, `${prefix}-1.png`]);
  } catch (err: any) {
    if (err.status !== 4) throw err; // 4: no symbol found
  }
  return out.split('\n').filter(Boolean);
}

describe('test fixtures (independent validator)', () => {
  test('the computed barcode and line are a valid FEBRABAN pair for R$ 1.234,56 due 2026-03-15 (after the factor reset)', () => {
    for (const code of [numbers.barcode, numbers.digitableLine]) {
      const v = boletoUtils.validarBoleto(code);
      expect(v).toMatchObject({
        sucesso: true,
        codigoBarras: numbers.barcode,
        linhaDigitavel: numbers.digitableLine,
        valor: 1234.56,
      });
      expect(new Date(v.vencimentoComNovoFator2025!).toISOString().slice(0, 10)).toBe('2026-03-15');
    }
  });

  test('the BR Code is a valid Pix payload', () => {
    expect(hasError(parsePix(pixCopyPaste))).toBe(false);
  });
});

describe('formatting', () => {
  test('amounts pt-BR, bank code check digits, document date in Brasília time', () => {
    expect(formatBrl(0)).toBe('R$ 0,00');
    expect(formatBrl(5)).toBe('R$ 0,05');
    expect(formatBrl(123456)).toBe('R$ 1.234,56');
    expect(formatBrl(123456789)).toBe('R$ 1.234.567,89');
    expect(['001', '033', '104', '237', '341'].map(bankCodeWithDigit)).toEqual([
      '001-9',
      '033-7',
      '104-0',
      '237-2',
      '341-7',
    ]);
    expect(isoDateInBrasilia(new Date('2026-03-01T02:00:00Z'))).toBe('2026-02-28');
    expect(formatDigitableLine(numbers.digitableLine)).toMatch(/^\d{5}\.\d{5} \d{5}\.\d{6} \d{5}\.\d{6} \d \d{14}$/);
  });
});

describe('renderBoletoPdf', () => {
  let pdf: string;
  beforeAll(async () => {
    pdf = await renderToFile('hybrid', input);
  });

  test('one A4 page, metadata from issuedAt, same bytes on every render', async () => {
    const info = run('pdfinfo', ['-isodates', pdf]);
    expect(info).toMatch(/^Pages:\s+1$/m);
    expect(info).toMatch(/^Page size:\s+595\.28 x 841\.89 pts \(A4\)$/m);
    expect(info).toMatch(/^CreationDate:\s+2026-03-01T13:00:00(Z|\+00)/m);
    const again = await renderBoletoPdf(input);
    expect(again.equals(fs.readFileSync(pdf))).toBe(true);
  });

  // pdfkit decodes a PNG with an alpha channel asynchronously and numbers its soft mask when the
  // decode ends: with two such images (bars and QR) the order, so the bytes, depended on timing.
  test('its images are opaque (no soft mask), so the bytes never depend on timing', () => {
    const rows = run('pdfimages', ['-list', pdf]).split('\n').slice(2).filter(Boolean);
    expect(rows.filter((row) => /\bimage\b/.test(row))).toHaveLength(2);
    expect(rows.filter((row) => /\bsmask\b/.test(row))).toEqual([]);
  });

  test('pdftotext -layout reads the digitable line, amount, dates, parties and instructions', () => {
    const text = run('pdftotext', ['-layout', pdf, '-']);
    const line = formatDigitableLine(numbers.digitableLine);
    expect(line).toBe('34191.09123 34567.880058 71234.570001 1 13860000123456');
    expect(text.split(line).length - 1).toBe(2); // receipt and ficha
    expect(text).toContain('341-7');
    expect(text).toContain('R$ 1.234,56');
    expect(text).toContain('15/03/2026'); // Vencimento
    expect(text).toContain('01/03/2026'); // Data do documento
    expect(text).toContain('Loja Exemplo Comércio Ltda - CNPJ 11.222.333/0001-81');
    expect(text).toContain('João da Silva Araújo - CPF 111.444.777-35');
    expect(text).toContain('São Paulo - SP - CEP 01001-000');
    for (const s of [
      'Recibo do pagador',
      'Ficha de Compensação',
      'Local de pagamento',
      'Nosso número',
      '109/12345678-8',
      '(=) Valor do documento',
      'Pague com Pix',
    ]) {
      expect(text).toContain(s);
    }
    expect(text).toContain('Após o vencimento, multa de 2,00%.');
    expect(text).toContain('Não receber após 30 dias do vencimento.');
    expect(text).toContain('Juros de mora de 1,00% ao mês.');
  });

  test('zbarimg decodes the Interleaved 2 of 5 bars as the 44-digit barcode', () => {
    expect(scan(pdf, 'i25')).toEqual([numbers.barcode]);
  });

  test('zbarimg decodes the QR code as the Pix BR Code', () => {
    expect(scan(pdf, 'qrcode')).toEqual([pixCopyPaste]);
  });

  test('bars in the 300 dpi raster: 0.254 mm modules (3 px), wide 3:1, 13 mm high, 103 mm long, clear quiet zones', () => {
    run('pdftoppm', ['-r', '300', '-gray', '-f', '1', '-l', '1', pdf, path.join(dir, 'gray')]);
    const bars = measureBars(fs.readFileSync(path.join(dir, 'gray-1.pgm')));
    expect(bars.count).toBe(114); // start (2) + 22 pairs × 5 + stop (2)
    expect(bars.lengthPx).toBeGreaterThanOrEqual(1215 - 3); // 405 modules × 3 px
    expect(bars.lengthPx).toBeLessThanOrEqual(1215 + 3);
    expect(bars.narrowPx).toBeGreaterThanOrEqual(2.5);
    expect(bars.narrowPx).toBeLessThanOrEqual(3.5);
    expect(bars.wideToNarrow).toBeGreaterThanOrEqual(2.25); // FEBRABAN: 2.25 to 3
    expect(bars.wideToNarrow).toBeLessThanOrEqual(3.2);
    expect(bars.heightPx).toBeGreaterThanOrEqual(150); // 13 mm = 153.5 px
    expect(bars.heightPx).toBeLessThanOrEqual(157);
    expect(bars.quietLeftPx).toBeGreaterThanOrEqual(59); // ≥ 5 mm
    expect(bars.quietRightPx).toBeGreaterThanOrEqual(59);
  });

  test('a plain boleto (no Pix) and a bank-issued example number: bars decode, no QR, no Pix caption', async () => {
    // Itaú example from @mrmgomes/boleto-utils' documentation: R$ 1.000,00.
    const barcode = '34196790600001000002220000005566385101214000';
    const v = boletoUtils.validarBoleto(barcode);
    expect(v).toMatchObject({ sucesso: true, valor: 1000 });
    const plain = await renderToFile('plain', {
      ...input,
      pixCopyPaste: undefined,
      barcode,
      digitableLine: v.linhaDigitavel,
      amountCents: 100000,
    });
    expect(scan(plain, 'i25')).toEqual([barcode]);
    expect(scan(plain, 'qrcode')).toEqual([]);
    const text = run('pdftotext', ['-layout', plain, '-']);
    expect(text).toContain(formatDigitableLine(v.linhaDigitavel));
    expect(text).toContain('R$ 1.000,00');
    expect(text).not.toContain('Pague com Pix');
  });

  test('refuses input that cannot make a payable boleto', async () => {
    const swapped = numbers.digitableLine.slice(0, 33) + numbers.digitableLine.slice(34) + numbers.digitableLine[33];
    await expect(renderBoletoPdf({ ...input, digitableLine: swapped })).rejects.toThrow(
      'digitable line and barcode carry different digits',
    );
    await expect(renderBoletoPdf({ ...input, barcode: numbers.barcode.slice(1) })).rejects.toThrow('44 digits');
    await expect(renderBoletoPdf({ ...input, dueDate: '15/03/2026' })).rejects.toThrow('YYYY-MM-DD');
    await expect(renderBoletoPdf({ ...input, amountCents: 12.5 })).rejects.toThrow(RangeError);
    await expect(renderBoletoPdf({ ...input, bankCode: '34' })).rejects.toThrow('bankCode');
  });
});

/**
 * Finds the barcode in a binary PGM (P5) page: the rows whose leftmost dark group has 114 bars,
 * and measures the elements of the middle row.
 */
function measureBars(pgm: Buffer) {
  const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(pgm.subarray(0, 64).toString('latin1'));
  if (!header) throw new Error('not a P5 PGM');
  const [width, height] = [Number(header[1]), Number(header[2])];
  const data = pgm.subarray(header[0].length);
  const dark = (x: number, y: number): boolean => data[y * width + x] < 128;

  type Row = { y: number; start: number; end: number; runs: number[]; bars: number };
  const rows: Row[] = [];
  for (let y = Math.floor(height * 0.6); y < height; y++) {
    let x = 0;
    while (x < width && !dark(x, y)) x++;
    if (x === width) continue;
    const start = x;
    const runs: number[] = [];
    let end = x;
    // Runs (bar, space, bar, ...) until a white gap wider than any space (> 20 px).
    while (x < width) {
      const isDark = dark(x, y);
      let len = 0;
      while (x < width && dark(x, y) === isDark) {
        x++;
        len++;
      }
      if (!isDark && len > 20) break;
      runs.push(len);
      if (isDark) end = x;
    }
    const bars = Math.ceil(runs.length / 2);
    if (bars === 114) rows.push({ y, start, end, runs: runs.slice(0, 2 * bars - 1), bars });
  }
  if (rows.length === 0)
    return { count: 0, lengthPx: 0, narrowPx: 0, wideToNarrow: 0, heightPx: 0, quietLeftPx: 0, quietRightPx: 0 };
  const mid = rows[Math.floor(rows.length / 2)];
  const sorted = [...mid.runs].sort((a, b) => a - b);
  const cut = (sorted[0] + sorted[sorted.length - 1]) / 2;
  const narrow = mid.runs.filter((r) => r < cut);
  const wide = mid.runs.filter((r) => r >= cut);
  const avg = (xs: number[]) => xs.reduce((s, v) => s + v, 0) / xs.length;
  const whiteRun = (from: number, step: 1 | -1): number => {
    let n = 0;
    for (let x = from; x >= 0 && x < width && !dark(x, mid.y); x += step) n++;
    return n;
  };
  return {
    count: mid.bars,
    lengthPx: mid.end - mid.start,
    narrowPx: avg(narrow),
    wideToNarrow: avg(wide) / avg(narrow),
    heightPx: rows.length,
    quietLeftPx: whiteRun(mid.start - 1, -1),
    quietRightPx: whiteRun(mid.end, 1),
  };
}
