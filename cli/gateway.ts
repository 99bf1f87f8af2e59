/**
 * Operator CLI: `npm run gateway -- <command>`.
 *   migrate   (applies pending migrations with MIGRATION_DATABASE_URL, else DATABASE_URL)
 *   merchant create --name <name> [--document <cpf|cnpj>] [--email <e>] [--payouts-enabled]
 *                   [--pix-key <key> --pix-key-type <type>] [--withdrawal-fee-cents <n>] [--json]
 *   merchant set-pix-key <merchantId> --key <key> --type <CPF|CNPJ|EMAIL|PHONE|EVP> [--holder-name <n>] [--holder-document <d>]
 *   merchant freeze <merchantId> | merchant unfreeze <merchantId>
 *   sandbox pay <chargeId | bill_<checkoutId>> [--json]
 *   sandbox pay-boleto <chargeId> [--amount <cents>] [--date YYYY-MM-DD] [--via PIX] [--json]
 *   sandbox open-infraction <chargeId> [--amount <cents>] [--reason FRAUD] [--json]
 *   payout reconcile <batchId> | withdrawal reconcile <withdrawalId>
 *   provider webhook register [--help]   (API Pix: where the PSP notifies Pix received)
 *   provider balance [--help]            (the platform's account balance at the PSP: Efí GET /v2/gn/saldo)
 *   mail list [--json] [--limit <n>] | mail show <id> [--json]   (the local mail sink of npm start)
 *   user create --email <e> --name <n> [--password <p> | env GATEWAY_USER_PASSWORD] [--json]
 *   user add-to-merchant --email <e> --merchant <id> --role <owner|admin|finance|viewer>
 *   user operator --email <e> [--revoke]
 *   credential create --merchant <id> --scopes <a,b> [--name <n>] [--json]
 *   connection register|show|test|rotate|revoke|webhook --merchant <id> …   (a merchant's own PSP connection: cli/connectionArgs.ts)
 *   connection-keys rewrap [--json]   (after a master key rotation: every connection's envelopes under the current key)
 *   audit [--json] [--since <ISO time>] [--sandbox-url <url>] [--stale-minutes <n>]   (exit 0 clean, 1 discrepancies, 2 usage)
 * Reads DATABASE_URL and friends from the environment, else from the running `npm start`
 * stack (.data/local-env.json).
 */
import { parseArgs } from 'node:util';
import { runMigrations } from '../db/migrator';
import { createSequelize } from '../db/sequelize';
import {
  createApiCredential,
  createMerchantWithCredential,
  setMerchantPixKey,
  setWithdrawalsFrozen,
} from '../db/identity/merchantAdmin';
import { checkoutStore } from '../db/checkouts';
import { merchantStore } from '../db/identity';
import { BILL_PREFIX, parseBillId } from '../core/checkouts/urls';
import { pspChargeRef } from '../core/pix/apiPixIds';
import { addUserToMerchant, createUser, parseRole, setPlatformOperator } from '../db/identity/userAdmin';
import { ALL_SCOPES } from '../core/identity/scopes';
import { readLocalEnv } from './lib/localEnv';
import { cliEnvironment, type CliEnvironment } from '../config';
import { reconcileCommand } from './reconcile';
import { mailCommand } from './mail';
import { sandboxPayBoleto } from './sandboxBoleto';
import { sandboxOpenInfraction } from './sandboxInfraction';
import { postSandboxControl } from './sandboxControl';
import { providerWebhookCommand } from './providerWebhook';
import { providerBalanceCommand } from './providerBalance';
import { auditCommand } from './audit/command';
import { connectionUsage, parseConnectionArgs } from './connectionArgs';
import { runConnectionCommand } from './connection';
import { credentialsKeyring, parseMasterKeys, type MasterKeyring } from '../core/crypto/envelope';
import { describeRewrap, rewrapConnections } from './connectionKeys';

const usage = `usage:
  npm run gateway -- migrate   (pending migrations, as the migration role: MIGRATION_DATABASE_URL, else DATABASE_URL)
  npm run gateway -- merchant create --name <name> [--document <cpf|cnpj>] [--email <email>] [--payouts-enabled]
                      [--pix-key <key> --pix-key-type <CPF|CNPJ|EMAIL|PHONE|EVP>] [--withdrawal-fee-cents <n>] [--json]
  npm run gateway -- merchant set-pix-key <merchantId> --key <key> --type <CPF|CNPJ|EMAIL|PHONE|EVP> [--holder-name <name>] [--holder-document <cpf|cnpj>]
  npm run gateway -- merchant freeze <merchantId>
  npm run gateway -- merchant unfreeze <merchantId>
  npm run gateway -- sandbox pay <chargeId | bill_<checkoutId>> [--json]
  npm run gateway -- sandbox pay-boleto <chargeId> [--amount <cents>] [--date YYYY-MM-DD] [--via PIX] [--json]
  npm run gateway -- sandbox open-infraction <chargeId> [--amount <cents>] [--reason FRAUD] [--json]
  npm run gateway -- payout reconcile <batchId>
  npm run gateway -- withdrawal reconcile <withdrawalId>
  npm run gateway -- provider webhook register [--help]   (API Pix: where the PSP notifies Pix received; --help lists the PIX_API_* variables)
  npm run gateway -- provider balance [--help]            (the platform's account balance at the PSP: Efí GET /v2/gn/saldo)
  npm run gateway -- mail list [--json] [--limit <n>]     (mail the local sink of npm start received)
  npm run gateway -- mail show <id> [--json]
  npm run gateway -- user create --email <email> --name <name> [--password <password>] [--json]
                      (or the password in env GATEWAY_USER_PASSWORD, which keeps it out of shell history)
  npm run gateway -- user add-to-merchant --email <email> --merchant <merchantId> --role <owner|admin|finance|viewer>
  npm run gateway -- user operator --email <email> [--revoke]   (platform staff: may reconcile every merchant at once)
  npm run gateway -- credential create --merchant <merchantId> --scopes <scope,scope> [--name <name>] [--json]
                      scopes: ${ALL_SCOPES.join(', ')}
${connectionUsage.replace(/^usage:\n/, '')}
  npm run gateway -- audit [--json] [--since <ISO time>] [--sandbox-url <url>] [--stale-minutes <n>]
                      (read-only: nothing lost or paid twice; exit 0 clean, 1 discrepancies, 2 usage)`;

let settings: CliEnvironment | undefined;

/** The CLI's configuration (config.ts cliEnvironment): the environment, else the running local stack's. */
function cli(): CliEnvironment {
  settings ??= cliEnvironment(readLocalEnv());
  return settings;
}

function env(name: string): string {
  return cli().required(name);
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
  if (feeText !== undefined && !/^\d+$/.test(feeText))
    throw new Error('--withdrawal-fee-cents must be a whole number of cents');
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
    else
      process.stdout.write(
        `merchant ${created.merchantId}\nclient id     ${created.clientId}\nclient secret ${created.clientSecret}  (shown once; store it now)\n`,
      );
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
  const registration = {
    key: values.key,
    type: values.type.toUpperCase(),
    holderName: values['holder-name'],
    holderDocument: values['holder-document'],
  };
  const saved = await withDatabase((sequelize) => setMerchantPixKey(sequelize, merchantId, registration));
  process.stdout.write(`merchant ${merchantId}: withdrawals go to ${saved.pixKeyType} key ${saved.pixKey}\n`);
}

async function merchantFreeze(argv: string[], frozen: boolean): Promise<void> {
  const { positionals } = parseArgs({ args: argv, options: {}, allowPositionals: true, strict: true });
  if (positionals.length !== 1)
    throw new Error(`merchant ${frozen ? 'freeze' : 'unfreeze'} needs exactly one merchant id`);
  await withDatabase((sequelize) => setWithdrawalsFrozen(sequelize, positionals[0], frozen));
  process.stdout.write(`merchant ${positionals[0]}: withdrawals ${frozen ? 'frozen' : 'unfrozen'}\n`);
}

async function sandboxPay(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { json: { type: 'boolean', default: false } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new Error('sandbox pay needs exactly one charge id or checkout id (bill_<uuid>)');
  const chargeId = positionals[0].startsWith(BILL_PREFIX) ? await checkoutCharge(positionals[0]) : positionals[0];
  // A charge of ours is the cob of its txid at the PSP (one issued before API Pix: our charge id).
  const refs = [...new Set([pspChargeRef(chargeId), chargeId])];
  const body = await postSandboxControl(
    refs.map((ref) => `/charges/${encodeURIComponent(ref)}/pay`),
    {},
  );
  if (values.json) {
    process.stdout.write(`${body}\n`);
    return;
  }
  // The whole charge carries a 4 KB base64 QR image: show what a person checks.
  const charge = JSON.parse(body) as {
    id: string;
    reference: string;
    status: string;
    amountCents: number;
    endToEndId: string | null;
  };
  process.stdout.write(
    [
      `charge       ${charge.id} (reference ${charge.reference})`,
      `status       ${charge.status}`,
      `amount       BRL ${(charge.amountCents / 100).toFixed(2)}`,
      `endToEndId   ${charge.endToEndId ?? '-'}`,
    ].join('\n') + '\n',
  );
}

/** The charge behind a checkout (`bill_<uuid>`, P0 or session), read from the database. */
async function checkoutCharge(publicId: string): Promise<string> {
  const id = parseBillId(publicId);
  if (!id) throw new Error(`${publicId} is not a checkout id of the form bill_<uuid>`);
  const chargeId = await withDatabase(() => checkoutStore.chargeIdOfCheckout(id));
  if (!chargeId) throw new Error(`no checkout ${publicId}`);
  return chargeId;
}

/** The password never appears in any output; prefer the environment over argv (visible in ps). */
async function userCreate(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      password: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (!values.email || !values.name) throw new Error('--email and --name are required');
  const password = values.password ?? cli().optional('GATEWAY_USER_PASSWORD');
  if (!password) throw new Error('give the password with --password or in env GATEWAY_USER_PASSWORD');
  const created = await withDatabase(() => createUser({ email: values.email!, name: values.name!, password }));
  if (values.json) process.stdout.write(`${JSON.stringify(created)}\n`);
  else process.stdout.write(`user ${created.id} (${created.email}) created\n`);
}

async function userAddToMerchant(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { email: { type: 'string' }, merchant: { type: 'string' }, role: { type: 'string' } },
    strict: true,
  });
  if (!values.email || !values.merchant || !values.role) throw new Error('--email, --merchant and --role are required');
  const role = parseRole(values.role);
  const done = await withDatabase(() =>
    addUserToMerchant({ email: values.email!, merchantId: values.merchant!, role }),
  );
  process.stdout.write(
    `user ${values.email!.toLowerCase()} ${done.changed === 'added' ? 'added to' : 'now has role on'} merchant ${done.merchantId} as ${done.role}\n`,
  );
}

async function userOperator(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { email: { type: 'string' }, revoke: { type: 'boolean', default: false } },
    strict: true,
  });
  if (!values.email) throw new Error('--email is required');
  const done = await withDatabase(() => setPlatformOperator({ email: values.email!, operator: !values.revoke }));
  process.stdout.write(
    `user ${values.email.toLowerCase()} is ${done.platformOperator ? 'now' : 'no longer'} a platform operator\n`,
  );
}

async function credentialCreate(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      merchant: { type: 'string' },
      scopes: { type: 'string' },
      name: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (!values.merchant || !values.scopes)
    throw new Error(`--merchant and --scopes are required (scopes: ${ALL_SCOPES.join(', ')})`);
  const scopes = [
    ...new Set(
      values.scopes
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  const merchantId = values.merchant;
  const issued = await withDatabase(async () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
    if (!uuid.test(merchantId) || !(await merchantStore.findMerchant(merchantId)))
      throw new Error(`no merchant with id ${merchantId}`);
    return createApiCredential({ merchantId, scopes, name: values.name ?? null }, env('CREDENTIALS_ENCRYPTION_KEY'));
  });
  const shown = {
    merchantId: issued.merchantId,
    clientId: issued.clientId,
    clientSecret: issued.clientSecret,
    scopes: issued.scopes,
    name: issued.name,
  };
  if (values.json) process.stdout.write(`${JSON.stringify(shown)}\n`);
  else
    process.stdout.write(
      `merchant ${shown.merchantId}\nclient id     ${shown.clientId}\nclient secret ${shown.clientSecret}  (shown once; store it now)\nscopes        ${shown.scopes.join(', ')}\n`,
    );
}

/** The connections' master keys: CREDENTIALS_ENCRYPTION_KEY as k1, and CONNECTION_MASTER_KEYS beside it (config.ts). */
function connectionKeyring(): MasterKeyring {
  const extra = cli().optional('CONNECTION_MASTER_KEYS');
  const currentKeyId = cli().optional('CONNECTION_MASTER_KEY_ID');
  const rotation =
    extra === undefined && currentKeyId === undefined
      ? null
      : { keys: extra === undefined ? {} : parseMasterKeys(extra), currentKeyId: currentKeyId ?? 'k1' };
  return credentialsKeyring(env('CREDENTIALS_ENCRYPTION_KEY'), rotation);
}

/** `connection-keys rewrap [--json]`: every connection's envelopes under the current master key (cli/connectionKeys.ts). */
async function connectionKeys(command: string | undefined, argv: string[]): Promise<void> {
  if (command !== 'rewrap') throw new Error('connection-keys needs rewrap');
  const { values } = parseArgs({ args: argv, options: { json: { type: 'boolean', default: false } }, strict: true });
  const keyring = connectionKeyring();
  const report = await withDatabase((sequelize) => rewrapConnections({ sequelize, keyring }));
  process.stdout.write(values.json ? `${JSON.stringify(report)}\n` : describeRewrap(report));
  if (report.unopenable.length > 0) process.exitCode = 1;
}

/** Each PSP request's time limit while testing a connection. */
const CONNECTION_TEST_TIMEOUT_MS = 15_000;

async function connection(action: string | undefined, argv: string[]): Promise<void> {
  const cmd = parseConnectionArgs(action, argv);
  const keyring = connectionKeyring();
  // Only `webhook` builds a URL for the PSP; the other actions run without PUBLIC_BASE_URL.
  const publicBaseUrl = cmd.action === 'webhook' ? env('PUBLIC_BASE_URL') : undefined;
  const done = await withDatabase((sequelize) =>
    runConnectionCommand({ sequelize, keyring, timeoutMs: CONNECTION_TEST_TIMEOUT_MS, publicBaseUrl }, cmd),
  );
  process.stdout.write(done.output);
  if (!done.ok) process.exitCode = 1;
}

/**
 * The schema step of a deployment (compose's `migrate` service): the migration role's login,
 * which owns the schema; the API and the worker then start with the runtime role's.
 */
async function migrate(argv: string[]): Promise<void> {
  if (argv.length > 0) throw new Error('migrate takes no arguments');
  const url = cli().optional('MIGRATION_DATABASE_URL') ?? env('DATABASE_URL');
  const sequelize = createSequelize(url, { poolMax: 2 });
  try {
    const applied = await runMigrations(sequelize);
    process.stdout.write(`migrations: ${applied.length ? applied.join(', ') : 'up to date'}\n`);
  } finally {
    await sequelize.close();
  }
}

async function main(): Promise<void> {
  const [group, command, ...rest] = process.argv.slice(2);
  if (group === 'migrate') return migrate(command === undefined ? [] : [command, ...rest]);
  if (group === 'merchant' && command === 'create') return merchantCreate(rest);
  if (group === 'merchant' && command === 'set-pix-key') return merchantSetPixKey(rest);
  if (group === 'merchant' && command === 'freeze') return merchantFreeze(rest, true);
  if (group === 'merchant' && command === 'unfreeze') return merchantFreeze(rest, false);
  if (group === 'sandbox' && command === 'pay') return sandboxPay(rest);
  if (group === 'sandbox' && command === 'pay-boleto') return sandboxPayBoleto(rest);
  if (group === 'sandbox' && command === 'open-infraction') return sandboxOpenInfraction(rest);
  if (group === 'user' && command === 'create') return userCreate(rest);
  if (group === 'user' && command === 'add-to-merchant') return userAddToMerchant(rest);
  if (group === 'user' && command === 'operator') return userOperator(rest);
  if (group === 'credential' && command === 'create') return credentialCreate(rest);
  if (group === 'connection') return connection(command, rest);
  if (group === 'connection-keys') return connectionKeys(command, rest);
  if ((group === 'payout' || group === 'withdrawal') && command === 'reconcile') {
    const { positionals } = parseArgs({ args: rest, options: {}, allowPositionals: true, strict: true });
    if (positionals.length !== 1)
      throw new Error(`${group} reconcile needs exactly one ${group === 'payout' ? 'batch' : 'withdrawal'} id`);
    return withDatabase((sequelize) =>
      reconcileCommand(sequelize, cli(), group === 'payout' ? 'payout-batch' : 'withdrawal', positionals[0]),
    );
  }
  if (group === 'provider' && command === 'webhook') return providerWebhookCommand(rest, cli().all);
  if (group === 'audit') return auditCommand(command === undefined ? [] : [command, ...rest], cli());
  if (group === 'provider' && command === 'balance') return providerBalanceCommand(rest, cli().all);
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
