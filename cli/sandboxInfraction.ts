/**
 * `npm run gateway -- sandbox open-infraction <chargeId> [--amount <cents>] [--reason FRAUD] [--json]`
 * The central bank's DICT, through the sandbox PSP, opens a Pix infraction (MED) against a paid
 * charge: the whole paid amount unless --amount says less. The gateway learns of it on its next
 * sync (POST /med/infractions/sync, or the med-infraction-sync schedule every 15 minutes).
 */
import { parseArgs } from 'node:util';
import { postSandboxControl } from './sandboxControl';
import { pspChargeRef } from '../core/pix/apiPixIds';

const REASONS = ['FRAUD', 'SCAM', 'ACCOUNT_TAKEOVER', 'COERCION', 'OTHER'];

export async function sandboxOpenInfraction(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { amount: { type: 'string' }, reason: { type: 'string' }, json: { type: 'boolean', default: false } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1)
    throw new Error('sandbox open-infraction needs exactly one charge id (or its endToEndId)');
  const body: Record<string, unknown> = {};
  if (values.amount !== undefined) {
    if (!/^\d{1,13}$/.test(values.amount) || Number(values.amount) < 1)
      throw new Error('--amount must be a whole number of cents ≥ 1');
    body.amountCents = Number(values.amount);
  }
  if (values.reason !== undefined) {
    const reason = values.reason.toUpperCase();
    if (!REASONS.includes(reason)) throw new Error(`--reason must be one of ${REASONS.join(', ')}`);
    body.reason = reason;
  }
  // A Pix charge of ours is the cob of its txid at the PSP; a boleto is known by our charge id.
  const refs = [...new Set([pspChargeRef(positionals[0]), positionals[0]])];
  const text = await postSandboxControl(
    refs.map((ref) => `/charges/${encodeURIComponent(ref)}/infractions`),
    body,
  );
  if (values.json) {
    process.stdout.write(`${text}\n`);
    return;
  }
  const inf = JSON.parse(text) as {
    id: string;
    reference: string | null;
    endToEndId: string;
    amountCents: number;
    reason: string;
    analysisDeadline: string;
  };
  process.stdout.write(
    [
      `infraction   ${inf.id} (charge ${inf.reference ?? '-'})`,
      `payment      ${inf.endToEndId}`,
      `disputed     ${inf.amountCents} cents, ${inf.reason}`,
      `deadline     ${inf.analysisDeadline} (at the provider)`,
      'the gateway picks it up on its next sync: POST /med/infractions/sync',
      '',
    ].join('\n'),
  );
}
