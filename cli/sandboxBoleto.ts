/**
 * `npm run gateway -- sandbox pay-boleto <chargeId> [--amount <cents>] [--date YYYY-MM-DD] [--via PIX] [--json]`
 * Pays a boleto charge in the sandbox as a payer would: by barcode (default) or by the hybrid
 * boleto's Pix, for the amount owed that day unless --amount says otherwise, today unless --date.
 * The sandbox then sends the signed boleto.paid callback; the gateway settles on its own look.
 */
import { parseArgs } from 'node:util';
import { postSandboxControl } from './sandboxControl';

export async function sandboxPayBoleto(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      amount: { type: 'string' },
      date: { type: 'string' },
      via: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new Error('sandbox pay-boleto needs exactly one charge id');
  const body: Record<string, unknown> = {};
  if (values.amount !== undefined) {
    if (!/^\d{1,13}$/.test(values.amount) || Number(values.amount) < 1)
      throw new Error('--amount must be a whole number of cents ≥ 1');
    body.amountCents = Number(values.amount);
  }
  if (values.date !== undefined) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(values.date)) throw new Error('--date must be YYYY-MM-DD');
    body.paidAt = values.date;
  }
  if (values.via !== undefined) {
    const via = values.via.toUpperCase();
    if (via !== 'PIX' && via !== 'BOLETO') throw new Error('--via must be PIX or BOLETO');
    body.via = via;
  }
  const text = await postSandboxControl(`/boletos/${encodeURIComponent(positionals[0])}/pay`, body);
  if (values.json) {
    process.stdout.write(`${text}\n`);
    return;
  }
  const boleto = JSON.parse(text) as {
    id: string;
    reference: string;
    status: string;
    amountCents: number;
    payment: {
      via: string;
      paidDate: string;
      amountCents: number;
      expectedAmountCents: number;
      late: boolean;
      amountMismatch: string | null;
      creditDate: string;
    };
  };
  const p = boleto.payment;
  process.stdout.write(
    [
      `boleto       ${boleto.id} (charge ${boleto.reference})`,
      `status       ${boleto.status} via ${p.via} on ${p.paidDate}${p.late ? ' (late)' : ''}`,
      `paid         ${p.amountCents} cents (owed that day ${p.expectedAmountCents}; face ${boleto.amountCents})${p.amountMismatch ? ` ${p.amountMismatch}` : ''}`,
      `credit date  ${p.creditDate}`,
      'the signed boleto.paid callback was sent; the charge settles for what was paid',
      '',
    ].join('\n'),
  );
}
