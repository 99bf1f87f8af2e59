/**
 * The operator CLI's commands the chaos load uses, run in this process against a test stack with
 * the same functions the CLI calls (cli/gateway.ts): `merchant create`, `credential create`,
 * `user add-to-merchant`, `sandbox pay <chargeId | bill_…>`. It prints what the CLI prints with
 * --json. The chaos runner gives the load the real built CLI instead; here a tsx start per call
 * would cost seconds of CPU each.
 */
import { parseArgs } from 'node:util';
import { createApiCredential } from '../../db/identity/merchantAdmin';
import { addUserToMerchant, parseRole } from '../../db/identity/userAdmin';
import type { IntegrationStack } from './integrationStack';
import { chargeOf } from './checkouts';
import { parseConnectionArgs } from '../../cli/connectionArgs';
import { runConnectionCommand, type ConnectionOutcome } from '../../cli/connection';
import { credentialsKeyring, type MasterKeyring } from '../../core/crypto/envelope';

type Stack = Pick<IntegrationStack, 'createMerchant' | 'encryptionKey' | 'sequelize' | 'pay' | 'apiUrl'>;

async function merchantCreate(stack: Stack, argv: string[]): Promise<string> {
  const { values } = parseArgs({
    args: argv,
    options: {
      name: { type: 'string' },
      document: { type: 'string' },
      'payouts-enabled': { type: 'boolean', default: false },
      'pix-key': { type: 'string' },
      'pix-key-type': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const created = await stack.createMerchant({
    name: values.name!,
    document: values.document,
    payoutsEnabled: values['payouts-enabled'],
    pixKey: values['pix-key'],
    pixKeyType: values['pix-key-type']?.toUpperCase(),
  });
  return `${JSON.stringify(created)}\n`;
}

async function credentialCreate(stack: Stack, argv: string[]): Promise<string> {
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
  const issued = await createApiCredential(
    { merchantId: values.merchant!, scopes: values.scopes!.split(','), name: values.name ?? null },
    stack.encryptionKey,
  );
  const { merchantId, clientId, clientSecret, scopes, name } = issued;
  return `${JSON.stringify({ merchantId, clientId, clientSecret, scopes, name })}\n`;
}

async function addToMerchant(argv: string[]): Promise<string> {
  const { values } = parseArgs({
    args: argv,
    options: { email: { type: 'string' }, merchant: { type: 'string' }, role: { type: 'string' } },
    strict: true,
  });
  const done = await addUserToMerchant({
    email: values.email!,
    merchantId: values.merchant!,
    role: parseRole(values.role!),
  });
  return `user ${values.email} added to merchant ${done.merchantId} as ${done.role}\n`;
}

async function sandboxPay(stack: Stack, argv: string[]): Promise<string> {
  const { positionals } = parseArgs({
    args: argv,
    options: { json: { type: 'boolean', default: false } },
    allowPositionals: true,
    strict: true,
  });
  const id = positionals[0];
  const chargeId = id.startsWith('bill_') ? await chargeOf(stack.sequelize, id) : id;
  const paid = await stack.pay(chargeId);
  if (paid.status >= 300) throw new Error(`sandbox answered ${paid.status}`);
  return `${JSON.stringify(paid.body)}\n`;
}

/**
 * `connection <action> …` as cli/gateway.ts runs it (the same parser and command), on the stack's
 * database and CREDENTIALS_ENCRYPTION_KEY, with the stack's API as PUBLIC_BASE_URL; `ok` is false
 * where the CLI exits 1 (a failed PSP test).
 */
export function connectionCli(
  stack: Pick<Stack, 'encryptionKey' | 'sequelize' | 'apiUrl'>,
  keyring: MasterKeyring = credentialsKeyring(stack.encryptionKey),
): (args: string[]) => Promise<ConnectionOutcome> {
  const deps = { sequelize: stack.sequelize, keyring, timeoutMs: 15_000, publicBaseUrl: stack.apiUrl };
  return async ([action, ...rest]) => runConnectionCommand(deps, parseConnectionArgs(action, rest));
}

/** A LoadTarget's `cli` for `stack`: the commands above, else an error naming the command. */
export function inProcessCli(stack: Stack): (args: string[]) => Promise<string> {
  return async (args) => {
    const [group, command, ...rest] = args;
    if (group === 'merchant' && command === 'create') return merchantCreate(stack, rest);
    if (group === 'credential' && command === 'create') return credentialCreate(stack, rest);
    if (group === 'user' && command === 'add-to-merchant') return addToMerchant(rest);
    if (group === 'sandbox' && command === 'pay') return sandboxPay(stack, rest);
    if (group === 'connection') return (await connectionCli(stack)([command, ...rest])).output;
    throw new Error(`inProcessCli: ${group} ${command} is not one of the load's commands`);
  };
}
