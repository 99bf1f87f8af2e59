/**
 * `npm run gateway -- connection …`: a merchant's own PSP connection (the connected account model,
 * docs/account-models.md). Registers it with its secrets sealed in envelopes, shows it without a
 * secret, tests it against the PSP, rotates its secrets without downtime (the new material is
 * stored as pending, tested, and promoted only when the test passes), revokes it, and registers at
 * the merchant's PSP the webhook that brings its Pix to the connection's own notification URL.
 * Returns what to print; a bad input is an Error whose message is the sentence to show.
 */
import fs from 'node:fs';
import type { Sequelize } from 'sequelize';
import { parseMaterial } from '../core/connections/material';
import type { ConnectionMaterial } from '../core/connections/material';
import { readClientTls } from '../core/net/clientTls';
import { openEnvelope, type MasterKeyring } from '../core/crypto/envelope';
import {
  ActiveConnectionExists,
  ConnectionNotActive,
  presentConnection,
  pspConnectionStore,
  registerConnection,
  stageRotation,
  type ConnectionTestRecord,
  type StagedRotation,
  type ConnectionView,
  type PspConnectionRow,
} from '../db/connections';
import { merchantStore } from '../db/identity';
import { checkConnection, webhookRegistrationProblem } from '../activities/provider/connectionCheck';
import { promoteIfItPasses } from '../activities/connections/rotation';
import type { PixApiConnection } from '../activities/provider/pixApi/connection';
import { pspConnectionOf } from '../activities/provider/accounts/connectedProvider';
import { PixApiClient } from '../activities/provider/pixApi/pixApiClient';
import { connectionWebhookUrl } from '../core/pix/callbackPath';
import { ensureConnectionWebhooksAt } from '../activities/provider/pixWebhook';
import type { ConnectionCommand, SecretFiles } from './connectionArgs';

export interface ConnectionDeps {
  sequelize: Sequelize;
  keyring: MasterKeyring;
  /** Each PSP request's time limit (PROVIDER_TIMEOUT_MS). */
  timeoutMs: number;
  /** PUBLIC_BASE_URL, where the PSP reaches this gateway: `webhook` only needs it. */
  publicBaseUrl?: string;
}

export interface ConnectionOutcome {
  output: string;
  /** False when the PSP test found problems (the CLI exits 1). */
  ok: boolean;
}

export async function runConnectionCommand(deps: ConnectionDeps, cmd: ConnectionCommand): Promise<ConnectionOutcome> {
  if (!(await merchantStore.findMerchant(cmd.merchantId))) throw new Error(`no merchant with id ${cmd.merchantId}`);
  switch (cmd.action) {
    case 'register':
      return register(deps, cmd);
    case 'show':
      return show(deps, cmd);
    case 'test':
      return test(deps, cmd);
    case 'rotate':
      return rotate(deps, cmd);
    case 'revoke':
      return revoke(deps, cmd);
    case 'webhook':
      return webhook(deps, cmd);
  }
}

async function register(
  deps: ConnectionDeps,
  cmd: Extract<ConnectionCommand, { action: 'register' }>,
): Promise<ConnectionOutcome> {
  if (await pspConnectionStore.findActiveConnection(deps.sequelize, cmd.merchantId))
    throw new Error(
      `merchant ${cmd.merchantId} already has an active connection: rotate its secrets, or revoke it first`,
    );
  const material = readMaterial('connection register', cmd.files);
  let row: PspConnectionRow;
  try {
    row = await registerConnection(
      deps.sequelize,
      deps.keyring,
      {
        merchantId: cmd.merchantId,
        pspKind: cmd.pspKind,
        apiBaseUrl: cmd.apiBaseUrl,
        tokenUrl: cmd.tokenUrl,
        clientId: cmd.clientId,
        pixKey: cmd.pixKey,
        accountNumber: cmd.accountNumber,
      },
      material,
    );
  } catch (err) {
    if (err instanceof ActiveConnectionExists)
      throw new Error(
        `merchant ${cmd.merchantId} already has an active connection: rotate its secrets, or revoke it first`,
      );
    throw err;
  }
  const result = await testMaterial(deps, row, material);
  await pspConnectionStore.recordTest(deps.sequelize, row.id, result);
  const view = presentConnection({ ...row, last_test: result });
  return { ok: result.ok, output: cmd.json ? json(view) : `registered ${describe(view)}` };
}

async function show(deps: ConnectionDeps, cmd: { merchantId: string; json: boolean }): Promise<ConnectionOutcome> {
  const row = await pspConnectionStore.findLatestConnection(deps.sequelize, cmd.merchantId);
  if (!row) throw new Error(`merchant ${cmd.merchantId} has no PSP connection`);
  const view = presentConnection(row);
  return { ok: true, output: cmd.json ? json(view) : describe(view) };
}

async function test(deps: ConnectionDeps, cmd: { merchantId: string; json: boolean }): Promise<ConnectionOutcome> {
  const row = await active(deps, cmd.merchantId);
  const result = await testMaterial(deps, row, parseMaterial(openEnvelope(row.secret_envelope, deps.keyring)));
  await pspConnectionStore.recordTest(deps.sequelize, row.id, result);
  return { ok: result.ok, output: cmd.json ? json(result) : describeTest(result) };
}

/** Staged, tested and promoted by the same code as POST /dashboard/connection/rotate (db/ and activities/connections/rotation.ts). */
async function rotate(
  deps: ConnectionDeps,
  cmd: Extract<ConnectionCommand, { action: 'rotate' }>,
): Promise<ConnectionOutcome> {
  const row = await active(deps, cmd.merchantId);
  const material = readMaterial('connection rotate', cmd.files);
  let staged: StagedRotation;
  try {
    staged = await stageRotation(deps.sequelize, deps.keyring, row, material);
  } catch (err) {
    if (err instanceof ConnectionNotActive)
      throw new Error(`merchant ${cmd.merchantId}'s connection was revoked meanwhile: nothing rotated`);
    throw err;
  }
  const result = await promoteIfItPasses(deps.sequelize, row, staged.envelope, (use) =>
    withPsp(deps, row, staged.material, use),
  );
  if (result.outcome === 'TEST_FAILED')
    throw new Error(
      `rotation refused, the active secrets stay in use: the new ones failed their test: ${result.test.problems.join('; ')}`,
    );
  if (result.outcome === 'SUPERSEDED')
    throw new Error(
      `merchant ${cmd.merchantId}'s connection changed meanwhile (revoked or rotated again): not promoted`,
    );
  const view = presentConnection({
    ...row,
    certificate_fingerprint: staged.certificateFingerprint,
    secret_key_id: staged.keyId,
    pending_secret_envelope: null,
    last_test: result.test,
  });
  return { ok: true, output: cmd.json ? json(view) : `rotated ${describe(view)}` };
}

async function revoke(deps: ConnectionDeps, cmd: { merchantId: string; json: boolean }): Promise<ConnectionOutcome> {
  const row = await pspConnectionStore.revokeConnection(deps.sequelize, cmd.merchantId);
  if (!row) throw new Error(`merchant ${cmd.merchantId} has no active PSP connection to revoke`);
  const view = presentConnection(row);
  return { ok: true, output: cmd.json ? json(view) : `revoked ${describe(view)}` };
}

/**
 * PUT /webhook/{chave} at the merchant's PSP, with its connection, for the connection's Pix key:
 * `<PUBLIC_BASE_URL>/webhooks/pix-api/connections/<id>/<path secret>` (the PSP appends /pix), left
 * alone when already there (the same step as the platform's, workers/ensurePixWebhook.ts), and Pix
 * Automático's webhookrec and webhookcobr at the same URL (`/rec`, `/cobr`). The
 * output shows the URL with its secret as `…`; a PSP failure is told in our words, never the PSP's.
 */
async function webhook(deps: ConnectionDeps, cmd: { merchantId: string; json: boolean }): Promise<ConnectionOutcome> {
  const row = await active(deps, cmd.merchantId);
  if (!deps.publicBaseUrl)
    throw new Error('connection webhook: PUBLIC_BASE_URL is required (where the PSP reaches this gateway)');
  const url = connectionWebhookUrl(
    deps.publicBaseUrl,
    row.id,
    openEnvelope(row.webhook_path_secret_envelope, deps.keyring),
  );
  const shownUrl = connectionWebhookUrl(deps.publicBaseUrl, row.id, '…');
  const material = parseMaterial(openEnvelope(row.secret_envelope, deps.keyring));
  const outcome = await withPsp(deps, row, material, async (connection) => {
    try {
      return await ensureConnectionWebhooksAt(
        new PixApiClient({ connection, baseUrl: row.api_base_url }),
        row.pix_key,
        url,
      );
    } catch (err) {
      throw new Error(`connection webhook: ${webhookRegistrationProblem(err, row.pix_key)}`);
    }
  });
  const view = { connectionId: row.id, merchantId: row.merchant_id, pixKey: row.pix_key, url: shownUrl, outcome };
  return {
    ok: true,
    output: cmd.json
      ? json(view)
      : `API Pix webhooks for key ${row.pix_key} and Pix Automático: ${outcome}
  ${shownUrl}/pix
  ${shownUrl}/rec
  ${shownUrl}/cobr
`,
  };
}

async function active(deps: ConnectionDeps, merchantId: string): Promise<PspConnectionRow> {
  const row = await pspConnectionStore.findActiveConnection(deps.sequelize, merchantId);
  if (!row) throw new Error(`merchant ${merchantId} has no active PSP connection (register one first)`);
  return row;
}

function testMaterial(
  deps: ConnectionDeps,
  row: PspConnectionRow,
  material: ConnectionMaterial,
): Promise<ConnectionTestRecord> {
  return withPsp(deps, row, material, (connection) =>
    checkConnection(connection, { apiBaseUrl: row.api_base_url, pixKey: row.pix_key }),
  );
}

/** A PixApiConnection to the merchant's PSP with `material` (its secrets), closed after `use`. */
async function withPsp<T>(
  deps: ConnectionDeps,
  row: PspConnectionRow,
  material: ConnectionMaterial,
  use: (connection: PixApiConnection) => Promise<T>,
): Promise<T> {
  const connection = pspConnectionOf(row, material, { timeoutMs: deps.timeoutMs, allowPlainHttp: false });
  try {
    return await use(connection);
  } finally {
    await connection.close();
  }
}

/**
 * The secret material named by the flags, read and proven usable (a key that does not match its
 * certificate, a PKCS#12 that does not open) before anything is stored. Messages name flags and
 * error codes only, never content.
 */
function readMaterial(command: string, files: SecretFiles): ConnectionMaterial {
  const clientSecret = readText(command, files.clientSecretFile, '--client-secret-file');
  const cert = files.certificate;
  const passphrase =
    cert.kind === 'pfx'
      ? cert.passphraseFile
        ? readText(command, cert.passphraseFile, '--pfx-passphrase-file')
        : ''
      : undefined;
  const { tls, problems } = readClientTls({
    certFile: { name: '--cert-file', value: cert.kind === 'pem' ? cert.certFile : undefined },
    keyFile: { name: '--key-file', value: cert.kind === 'pem' ? cert.keyFile : undefined },
    pfxFile: { name: '--pfx-file', value: cert.kind === 'pfx' ? cert.pfxFile : undefined },
    pfxPassphrase: { name: '--pfx-passphrase-file', value: passphrase },
    caFile: { name: '--ca-file', value: files.caFile ?? undefined },
  });
  if (!tls?.identity) throw new Error(`${command}: ${problems.join('; ') || 'no client certificate'}`);
  return { clientSecret, identity: tls.identity, ca: tls.ca };
}

/** A secret file's text without its final line break (an editor adds one). */
function readText(command: string, file: string, flag: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw new Error(`${command}: ${flag} could not be read (${typeof code === 'string' ? code : 'unreadable'})`);
  }
  if (!text) throw new Error(`${command}: ${flag} is empty`);
  return text;
}

function describe(v: ConnectionView): string {
  const lines = [
    `connection ${v.id} (${v.status})`,
    `merchant      ${v.merchantId}`,
    `psp           ${v.pspKind}  ${v.apiBaseUrl}`,
    `token url     ${v.tokenUrl}`,
    `client id     ${v.clientId}`,
    `pix key       ${v.pixKey}`,
    `certificate   SHA-256 ${v.certificateFingerprint ?? '(not readable from the PKCS#12)'}`,
    `master key    ${v.masterKeyId}${v.rotationPending ? '  (a rotation is pending)' : ''}`,
  ];
  const head = `${lines.join('\n')}\n`;
  return v.lastTest ? `${head}${describeTest(v.lastTest)}` : `${head}last test     never\n`;
}

function describeTest(t: ConnectionTestRecord): string {
  const head = `last test     ${t.at}: ${t.ok ? 'OK' : 'PROBLEMS'} (token ${t.token}, webhook ${t.webhook}, balance ${t.balance})\n`;
  return head + t.problems.map((p) => `  - ${p}\n`).join('');
}

function json(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}
