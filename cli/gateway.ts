/**
 * Operator CLI: `npm run gateway -- <command>`.
 *   merchant create --name <name> [--document <cpf|cnpj>] [--email <e>] [--payouts-enabled]
 *                   [--pix-key <key> --pix-key-type <type>] [--withdrawal-fee-cents <n>] [--json]
 *   merchant set-pix-key <merchantId> --key <key> --type <CPF|CNPJ|EMAIL|PHONE|EVP> [--holder-name <n>] [--holder-document <d>]
 *   merchant freeze <merchantId> | merchant unfreeze <merchantId>
 *   sandbox pay <chargeId> [--json]
 *   payout reconcile <batchId> | withdrawal reconcile <withdrawalId>
 *   mail list [--json] [--limit <n>] | mail show <id> [--json]   (the local mail sink of npm start)
 * Reads DATABASE_URL and friends from the environment, else from the running `npm start`
 * stack (.data/local-env.json).
 */
import { parseArgs } from 'node:util';
import { runMigrations } from '../db/migrator';
import { createSequelize } from '../db/sequelize';
import { createMerchantWithCredential, setMerchantPixKey, setWithdrawalsFrozen } from '../db/merchantAdmin';
import { readLocalEnv } from '../scripts/lib/localSecrets';
import { reconcileCommand } from './reconcile';
import { mailCommand } from './mail';

const usage = `usage:
  npm run gateway -- merchant create --name <name> [--document <cpf|cnpj>] [--email <email>] [--payouts-enabled]
                      [--pix-key <key> --pix-key-type <CPF|CNPJ|EMAIL|PHONE|EVP>] [--withdrawal-fee-cents <n>] [--json]
  npm run gateway -- merchant set-pix-key <merchantId> --key <key> --type <CPF|CNPJ|EMAIL|PHONE|EVP> [--holder-name <name>] [--holder-document <cpf|cnpj>]
  npm run gateway -- merchant freeze <merchantId>
  npm run gateway -- merchant unfreeze <merchantId>
  npm run gateway -- sandbox pay <chargeId> [--json]
  npm run gateway -- payout reconcile <batchId>
  npm run gateway -- withdrawal reconcile <withdrawalId>
  npm run gateway -- mail list [--json] [--limit <n>]     (mail the local sink of npm start received)
  npm run gateway -- mail show <id> [--json]`;

function env(name: string): string {
  const value = process.env[name] ?? readLocalEnv()[name];
  if (!value) throw new Error(`${name} is not set and no running stack was found (start it with npm start)`);
  return value;
}

async function merchantCreate(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      name: { type: 'string' },
      document: { type: 'string' },
      email: { type: 'string' },
      'payouts-enabled': { type: 'boolean', default: false },
      'pix-key': { type: 'string' },
      'pix-key-type': { type: 'string' },
      'withdrawal-fee-cents': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (!values.name) throw new Error('--name is required');
  const feeText = values['withdrawal-fee-cents'];
  if (feeText !== undefined && !/^\d+$/.test(feeText)) throw new Error('--withdrawal-fee-cents must be a whole number of cents');
  const sequelize = createSequelize(env('DATABASE_URL'), { poolMax: 2 });
  try {
    await runMigrations(sequelize);
    const created = await createMerchantWithCredential(
      sequelize,
      {
        name: values.name,
        document: values.document,
        email: values.email,
        payoutsEnabled: values['payouts-enabled'],
        pixKey: values['pix-key'],
        pixKeyType: values['pix-key-type']?.toUpperCase(),
        withdrawalFeeCents: feeText === undefined ? undefined : Number(feeText),
      },
      env('CREDENTIALS_ENCRYPTION_KEY'),
    );
    if (values.json) process.stdout.write(`${JSON.stringify(created)}\n`);
    else process.stdout.write(`merchant ${created.merchantId}\nclient id     ${created.clientId}\nclient secret ${created.clientSecret}  (shown once; store it now)\n`);
  } finally {
    await sequelize.close();
  }
}

async function withDatabase<T>(work: (sequelize: ReturnType<typeof createSequelize>) => Promise<T>): Promise<T> {
  const sequelize = createSequelize(env('DATABASE_URL'), { poolMax: 2 });
  try {
    await runMigrations(sequelize);
    return await work(sequelize);
  } finally {
    await sequelize.close();
  }
}

async function merchantSetPixKey(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      key: { type: 'string' },
      type: { type: 'string' },
      'holder-name': { type: 'string' },
      'holder-document': { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  const [merchantId, ...extra] = positionals;
  if (!merchantId || extra.length > 0) throw new Error('merchant set-pix-key needs exactly one merchant id');
  if (!values.key || !values.type) throw new Error('--key and --type are required');
  const registration = { key: values.key, type: values.type.toUpperCase(), holderName: values['holder-name'], holderDocument: values['holder-document'] };
  const saved = await withDatabase((sequelize) => setMerchantPixKey(sequelize, merchantId, registration));
  process.stdout.write(`merchant ${merchantId}: withdrawals go to ${saved.pixKeyType} key ${saved.pixKey}\n`);
}

async function merchantFreeze(argv: string[], frozen: boolean): Promise<void> {
  const { positionals } = parseArgs({ args: argv, options: {}, allowPositionals: true, strict: true });
  if (positionals.length !== 1) throw new Error(`merchant ${frozen ? 'freeze' : 'unfreeze'} needs exactly one merchant id`);
  await withDatabase((sequelize) => setWithdrawalsFrozen(sequelize, positionals[0], frozen));
  process.stdout.write(`merchant ${positionals[0]}: withdrawals ${frozen ? 'frozen' : 'unfrozen'}\n`);
}

async function sandboxPay(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, options: { json: { type: 'boolean', default: false } }, allowPositionals: true, strict: true });
  if (positionals.length !== 1) throw new Error('sandbox pay needs exactly one charge id');
  const local = readLocalEnv();
  const base = process.env.SANDBOX_BASE_URL ?? local.SANDBOX_BASE_URL ?? 'http://127.0.0.1:4010';
  // Outside development the sandbox's control routes want this token (never printed).
  const token = process.env.SANDBOX_CONTROL_TOKEN ?? local.SANDBOX_CONTROL_TOKEN;
  const res = await fetch(`${base}/sandbox/charges/${encodeURIComponent(positionals[0])}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: '{}',
  });
  const body = await res.text();
  if (!res.ok) throw new Error(`sandbox answered ${res.status}: ${body}`);
  if (values.json) {
    process.stdout.write(`${body}\n`);
    return;
  }
  // The whole charge carries a 4 KB base64 QR image: show what a person checks.
  const charge = JSON.parse(body) as { id: string; reference: string; status: string; amountCents: number; endToEndId: string | null };
  process.stdout.write(
    [
      `charge       ${charge.id} (reference ${charge.reference})`,
      `status       ${charge.status}`,
      `amount       BRL ${(charge.amountCents / 100).toFixed(2)}`,
      `endToEndId   ${charge.endToEndId ?? '-'}`,
    ].join('\n') + '\n',
  );
}

async function main(): Promise<void> {
  const [group, command, ...rest] = process.argv.slice(2);
  if (group === 'merchant' && command === 'create') return merchantCreate(rest);
  if (group === 'merchant' && command === 'set-pix-key') return merchantSetPixKey(rest);
  if (group === 'merchant' && command === 'freeze') return merchantFreeze(rest, true);
  if (group === 'merchant' && command === 'unfreeze') return merchantFreeze(rest, false);
  if (group === 'sandbox' && command === 'pay') return sandboxPay(rest);
  if ((group === 'payout' || group === 'withdrawal') && command === 'reconcile') {
    const { positionals } = parseArgs({ args: rest, options: {}, allowPositionals: true, strict: true });
    if (positionals.length !== 1) throw new Error(`${group} reconcile needs exactly one ${group === 'payout' ? 'batch' : 'withdrawal'} id`);
    return withDatabase((sequelize) => reconcileCommand(sequelize, env, group === 'payout' ? 'payout-batch' : 'withdrawal', positionals[0]));
  }
  if (group === 'mail') {
    const out = mailCommand(command, rest);
    if (out !== undefined) return void process.stdout.write(out);
  }
  process.stderr.write(`${usage}\n`);
  process.exit(2);
}

main().catch((err) => {
  process.stderr.write(`gateway: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
