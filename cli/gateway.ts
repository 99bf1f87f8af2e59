/**
 * Operator CLI: `npm run gateway -- <command>`.
 *   merchant create --name <name> [--document <cpf|cnpj>] [--email <e>] [--payouts-enabled] [--json]
 *   sandbox pay <chargeId>
 * Reads DATABASE_URL and friends from the environment, else from the running `npm start`
 * stack (.data/local-env.json).
 */
import { parseArgs } from 'node:util';
import { runMigrations } from '../db/migrator';
import { createSequelize } from '../db/sequelize';
import { createMerchantWithCredential } from '../db/merchantAdmin';
import { readLocalEnv } from '../scripts/lib/localSecrets';

const usage = `usage:
  npm run gateway -- merchant create --name <name> [--document <cpf|cnpj>] [--email <email>] [--payouts-enabled] [--json]
  npm run gateway -- sandbox pay <chargeId>`;

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
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (!values.name) throw new Error('--name is required');
  const sequelize = createSequelize(env('DATABASE_URL'), { poolMax: 2 });
  try {
    await runMigrations(sequelize);
    const created = await createMerchantWithCredential(
      sequelize,
      { name: values.name, document: values.document, email: values.email, payoutsEnabled: values['payouts-enabled'] },
      env('CREDENTIALS_ENCRYPTION_KEY'),
    );
    if (values.json) process.stdout.write(`${JSON.stringify(created)}\n`);
    else process.stdout.write(`merchant ${created.merchantId}\nclient id     ${created.clientId}\nclient secret ${created.clientSecret}  (shown once; store it now)\n`);
  } finally {
    await sequelize.close();
  }
}

async function sandboxPay(argv: string[]): Promise<void> {
  const chargeId = argv[0];
  if (!chargeId) throw new Error('sandbox pay needs a charge id');
  const base = process.env.SANDBOX_BASE_URL ?? readLocalEnv().SANDBOX_BASE_URL ?? 'http://127.0.0.1:4010';
  const res = await fetch(`${base}/sandbox/charges/${encodeURIComponent(chargeId)}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  const body = await res.text();
  if (!res.ok) throw new Error(`sandbox answered ${res.status}: ${body}`);
  process.stdout.write(`${body}\n`);
}

async function main(): Promise<void> {
  const [group, command, ...rest] = process.argv.slice(2);
  if (group === 'merchant' && command === 'create') return merchantCreate(rest);
  if (group === 'sandbox' && command === 'pay') return sandboxPay(rest);
  process.stderr.write(`${usage}\n`);
  process.exit(2);
}

main().catch((err) => {
  process.stderr.write(`gateway: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
