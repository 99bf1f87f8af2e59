/**
 * Process configuration, read once from the environment and checked as a whole: a configuration
 * that would fail open (an unknown environment, a production URL over http or to loopback,
 * private webhook destinations in production, a missing secret, a negative fee, idempotency
 * switched off) refuses to start with one error that lists every problem. Messages name the
 * variable, never its value: values may be secrets. In development and tests the start/test
 * scripts generate local secrets.
 */
import crypto from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { parseKey } from './core/crypto/secretBox';
import { credentialsKeyring, parseMasterKeys, type MasterKeyRotation } from './core/crypto/envelope';
import { documentType } from './core/documents';
import type { AccountModelDefault } from './core/provider';
import { readClientTls, type ClientTls } from './core/net/clientTls';
import { parsePrivateReceivers, type PrivateReceiver } from './core/net/destination';
import { PASSWORD_HASHINGS, type PasswordHashing } from './core/identity/passwords';
import type { StorageConfig } from './core/storage/createObjectStore';
import type { TemporalConnectionSettings } from './core/temporal/connection';
import { ACCOUNT_TYPE_TO_WIRE } from './core/pixAutomatico/wireNames';
import type { ReceiverAccount } from './core/pixAutomatico/types';

export const ENVIRONMENTS = ['development', 'test', 'production'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** Express 'trust proxy': false, a hop count, or the proxies' addresses / CIDR ranges / proxy-addr names. */
export type TrustProxy = false | number | string[];

/** pino's levels, most severe first; `silent` logs nothing. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Where and how much the process logs (core/logger.ts createLogger takes it). */
export interface LogConfig {
  /**
   * LOG_LEVEL: fatal, error, warn, info, debug, trace or silent. Default: info; under NODE_ENV=test
   * debug when the run has a log directory, else silent. Production: info (debug lines name more
   * ids, never secrets: redaction applies at every level).
   */
  level: LogLevel;
  /**
   * GATEWAY_TEST_LOG_DIR: set by scripts/test.ts for a test run, read only when NODE_ENV=test
   * (ignored otherwise, so never in production): every process of the run writes its lines to a
   * file there, which the secrets audit reads. Default: none (lines go to stdout).
   */
  testLogDir: string | null;
}

/** The build a deployment runs, for /healthz and /ready (api/health/buildInfo.ts). */
export interface BuildConfig {
  /**
   * GIT_SHA, BUILD_ID, BUILT_AT: set by the build or deploy (CI), free text. Default: none (the
   * SHA is then read from a git checkout, if the process runs in one). Shown only with
   * EXPOSE_BUILD_INFO=true. Production: set them in the image and keep EXPOSE_BUILD_INFO false
   * unless the health routes are not public.
   */
  gitSha: string | null;
  buildId: string | null;
  builtAt: string | null;
}

export interface GatewayConfig {
  env: Environment;
  port: number;
  host: string;
  /** Base URL the provider uses to reach our callback route. */
  publicBaseUrl: string;
  /** DATABASE_URL: the runtime role's login (rows only; scripts/lib/databaseRoles.ts). */
  databaseUrl: string;
  /**
   * MIGRATION_DATABASE_URL: the migration role's login, which owns the schema; the API and the
   * worker apply pending migrations with it at start. Default: DATABASE_URL (one login does both).
   * Production: run migrations as their own step (compose's `migrate` service, `gateway migrate`)
   * and leave it unset in the API and the worker, so they hold no login that can change the schema.
   */
  migrationDatabaseUrl: string;
  /**
   * The Temporal frontend (TEMPORAL_ADDRESS; TLS: TEMPORAL_TLS_CERT + TEMPORAL_TLS_KEY,
   * TEMPORAL_TLS_CA, TEMPORAL_TLS_SERVER_NAME, read and proven usable at start), namespace and task
   * queue. Connect with core/temporal/connection.ts temporalConnectionOptions.
   */
  temporal: TemporalConnectionSettings & { namespace: string; taskQueue: string };
  provider: { baseUrl: string; apiKey: string; callbackSecret: string; timeoutMs: number };
  /** The PSP's API Pix v2, which collects Pix charges; calls share provider.timeoutMs. */
  pixApi: PixApiConfig;
  /** Money out (withdrawals, payouts, settlements, refunds to a key, MED): the PSP's send API. */
  pixTransfers: PixTransfersConfig;
  /** 32-byte key (hex or base64) that encrypts API client secrets at rest. */
  credentialsEncryptionKey: string;
  /** Platform fee on Pix charges, applied when a merchant has no own fee set. */
  defaultPixFeeBps: number;
  defaultPixFeeFixedCents: number;
  /** Lifetime of a Pix charge when the caller gives no expiresAt. */
  defaultChargeTtlSeconds: number;
  idempotencyTtlHours: number;
  rateLimitPerMinute: number;
  /** Open live-status streams of the hosted checkout page (GET /c/{id}/events) per checkout and per client IP; beyond, 429. */
  checkoutStreams: { perCheckout: number; perIp: number };
  /** Which hops in front of the API are trusted to set X-Forwarded-For (the per-IP limit keys on the client address). */
  trustProxy: TrustProxy;
  allowPrivateWebhookDestinations: boolean;
  /** WEBHOOK_PRIVATE_RECEIVERS: private `ip:port`s the merchants each entry names may reach all the same, production included. */
  webhookPrivateReceivers: PrivateReceiver[];
  /**
   * WEBHOOK_FIRST_ATTEMPT_LEASE_SECONDS (30): how long the worker that committed an event holds its
   * deliveries' first attempts before the dispatcher's sweep may take them over (a worker that
   * died between commit and send). Longer than an attempt's 10 s receiver timeout.
   */
  webhookFirstAttemptLeaseSeconds: number;
  /** /healthz and /ready show the git SHA and build id only when this is set (they are public). */
  exposeBuildInfo: boolean;
  build: BuildConfig;
  log: LogConfig;
  /**
   * PLATFORM_INSTITUTION_NAME: our payment institution as charges, withdrawals and receipts name
   * it (the merchant's account is held there). Default: Gateway Pagamentos IP. Production: the
   * institution's registered name, set before going live (stored withdrawal snapshots and rendered
   * receipts keep the name they were made with).
   */
  platformInstitutionName: string;
  /**
   * PLATFORM_PSP_ACCOUNT_NUMBER and PLATFORM_PSP_ACCOUNT_DOCUMENT: the platform's own account at the
   * connected merchants' PSP (Efí's `conta` and its holder's CPF or CNPJ), where Split Pix pays the
   * platform's fee (issue 37, docs/account-models.md). Default outside production: the bundled
   * sandbox's default account (1000001, 11222333000181); in production none, and a connected
   * merchant's charge with a fee is refused (SPLIT_NOT_POSSIBLE) until both are set.
   */
  platformPspAccount: { conta: string; document: string } | null;
  /**
   * CONNECTION_MASTER_KEYS (`id=key,…`, each 32 bytes as 64 hex or base64) and CONNECTION_MASTER_KEY_ID:
   * master keys of the merchants' PSP connections beside CREDENTIALS_ENCRYPTION_KEY (`k1`), and the
   * one new envelopes are sealed with (default k1). Unset: k1 alone. A rotation: add `k2=…`, set
   * CONNECTION_MASTER_KEY_ID=k2, restart, run `gateway connection rewrap`, then drop nothing until
   * it reports no envelope left under the old key (docs/operations.md).
   */
  connectionMasterKeys: MasterKeyRotation | null;
  /**
   * ACCOUNT_MODEL_DEFAULT: the account model of a merchant with no PSP connection (issue 37,
   * docs/account-models.md). `platform`: its money is held in the platform's account (an authorised
   * payment institution). `connected`: the platform holds nobody's money, so such a merchant takes
   * no charge, boleto or payout until it registers its own connection (409 PSP_CONNECTION_REQUIRED).
   * Default: `connected` in production (an operator that is not an authorised institution may not
   * hold merchants' money, BCB Resolution 518/2025), `platform` in development and tests.
   */
  accountModelDefault: AccountModelDefault;
  /**
   * RECEIPT_RENDER_THREADS (1 to 32): worker threads drawing receipt PDFs in the API process.
   * Default: the cores but one (the event loop's), at least 1 and at most 4. Production: the default
   * unless receipts queue behind each other on a larger machine.
   */
  receiptRenderThreads: number | null;
  /**
   * SANDBOX_CONTROL_TOKEN: the token the bundled sandbox's control routes want (sandbox/config.ts),
   * which the hosted checkout page's "Simular pagamento" sends. Default: none (the sandbox's control
   * routes are open in development and tests). Production: ignored, there is no payment simulator.
   */
  sandboxControlToken: string | null;
  payouts: { chunkSize: number; parallelChunks: number; itemConcurrency: number; sliceSize: number };
  /** Application API sign-in (api/identity/auth/accessTokens.ts, refresh cookie). */
  auth: AuthConfig;
  /** Uploaded files (avatars): S3 when S3_ENDPOINT is set, else UPLOADS_DIR served by the API. */
  storage: StorageConfig;
  /** SMTP server mail is sent through (smtp:// or smtps://, may carry a login). Null: not configured (development/test only). */
  smtpUrl: string | null;
  /** From header of every mail we send. */
  mailFrom: string;
  /**
   * Keys the verification codes printed on receipts (RECEIPT_SIGNING_KEY, ≥ 32 characters;
   * core/receipts/verificationCode.ts). Required in production; empty in development and tests,
   * where the key is derived from the encryption key. Changing it makes earlier receipts unverifiable.
   */
  receiptSigningKey: string;
  /** METRICS_TOKEN (≥ 32 characters): bearer token of /metrics and /metrics/perf-db; null: open outside production, 404 in production. */
  metricsToken: string | null;
  /** Pix infractions (MED): how long a merchant has to answer one, and when the reminder goes. */
  med: { analysisDeadlineMs: number; reminderBeforeMs: number };
  /**
   * WORKFLOW_BUNDLE: a workflow bundle built beforehand (workers/bundleWorkflowsCli.ts), which the
   * worker loads instead of bundling the workflow code at start; null: bundle at start.
   */
  workflowBundlePath: string | null;
  /**
   * WORKER_HEALTH_PORT: the worker answers GET /healthz there (200 while it polls, 503 otherwise;
   * workers/healthServer.ts) on HOST, for a container healthcheck; null: no health port.
   */
  workerHealthPort: number | null;
}

export interface AuthConfig {
  /**
   * HMAC keys for access tokens (JWT_SECRETS, comma-separated, ≥ 32 characters each): the first
   * signs, every one verifies, so a key is rotated by putting a new one first and dropping the old
   * one 15 minutes later. Empty in development and tests: derived from the encryption key.
   */
  jwtSecrets: string[];
  /** The refresh and CSRF cookies carry `Secure` (everywhere but development and tests). */
  secureCookies: boolean;
  /**
   * PASSWORD_HASHING: `owasp` (argon2id, 64 MiB, t=3, p=4) or `test` (1 MiB, t=1, p=1; the test
   * suite's, core/identity/passwords.ts). Read only when NODE_ENV=test (ignored otherwise, so never
   * in production). Default and everywhere else: owasp.
   */
  passwordHashing?: PasswordHashing;
}

/**
 * API Pix v2 (PIX_API_*, PIX_RECEIVING_KEY, PIX_WEBHOOK_SECRET). Without PIX_API_BASE_URL, outside
 * production, the bundled sandbox speaks API Pix at PROVIDER_BASE_URL with its own client
 * credentials and key; in production every value must be given.
 */
export interface PixApiConfig {
  /** e.g. https://psp.example/api/v2 (the major version is part of the path). */
  baseUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** Client certificate (PEM pair or PKCS#12) and extra CA, read and checked at start; null: none. */
  tls: ClientTls | null;
  /** The Pix key (chave DICT) cobs are created on and the webhook is registered for. */
  receivingKey: string;
  /** Secret path segment of the callback URL registered at the PSP (≥ 32 URL-safe characters). */
  webhookSecret: string;
  /**
   * Plain http accepted: development and test only, for the sandbox wherever PROVIDER_BASE_URL
   * puts it (docker-compose: http://sandbox:4010) and for a PSP simulator on loopback.
   */
  allowPlainHttp: boolean;
  /** The bundled sandbox (no PIX_API_BASE_URL, not production). */
  sandbox: boolean;
  /**
   * Pix Automático: the receiver's account at the PSP every cycle charge (cobr) names as its
   * `recebedor` (PIX_AUTOMATICO_RECEIVER_*); null where none is configured (subscriptions are then
   * refused on the platform's account). The sandbox's is its token's account, 1000001.
   */
  automaticoReceiver: AutomaticoReceiverAccount | null;
}

/** The account a cycle charge pays into (core/pixAutomatico/types.ts ReceiverAccount). */
export interface AutomaticoReceiverAccount {
  branch: string | null;
  account: string;
  accountType: ReceiverAccount['accountType'];
}

/**
 * Money out. The BCB's standard covers only receiving: sending Pix, its statement, the account's
 * balance and MED are each PSP's own API (docs/psp.md). PIX_TRANSFERS_API picks the adapter:
 * `efi` (the default everywhere, production included) speaks Efí's routes (`/v3/gn/pix/{idEnvio}`,
 * `/v2/gn/pix/enviados…`, `/v2/gn/saldo`, `/v2/gn/infracoes…`) over the API Pix connection (same
 * host, token and certificate), and the bundled sandbox speaks them too, so tests run the adapter
 * production runs; `sandbox` is the sandbox's own `/v1` API, kept only for transfers a development
 * database sent through it before (refused in production: no PSP speaks it).
 */
export interface PixTransfersConfig {
  api: 'efi' | 'sandbox';
  /** EFI_API_BASE_URL: Efí's origin (routes /v2/gn/…, /v3/gn/…); default: the origin of PIX_API_BASE_URL. */
  efiBaseUrl: string;
  /** PIX_SENDER_KEY: the key that pays (pagador.chave); default PIX_RECEIVING_KEY. */
  senderKey: string;
  /** PIX_SEND_CONCURRENCY: sends in flight at once per PSP account, across every worker (Efí advises 1). */
  sendConcurrency: number;
  /** PIX_SEND_OUTCOME_WAIT_MS: how long one attempt holds its send slot waiting for EM_PROCESSAMENTO to end. */
  outcomeWaitMs: number;
}

export const PIX_TRANSFERS_APIS = ['efi', 'sandbox'] as const;

function pixTransfers(read: EnvReader, production: boolean, pix: PixApiConfig): PixTransfersConfig {
  const raw = read.raw('PIX_TRANSFERS_API') ?? 'efi';
  const api = PIX_TRANSFERS_APIS.find((a) => a === raw);
  if (!api) read.problems.push(`PIX_TRANSFERS_API must be one of ${PIX_TRANSFERS_APIS.join(', ')}`);
  if (production && api === 'sandbox')
    read.problems.push("PIX_TRANSFERS_API=sandbox is refused in production: it is the bundled sandbox's own API");
  let efiBaseUrl: string;
  if (read.raw('EFI_API_BASE_URL') !== undefined) efiBaseUrl = pixApiUrl(read, 'EFI_API_BASE_URL', production);
  else {
    try {
      efiBaseUrl = new URL(pix.baseUrl).origin;
    } catch {
      efiBaseUrl = ''; // PIX_API_BASE_URL's own problem is reported already
    }
  }
  const senderKey = read.raw('PIX_SENDER_KEY') ?? pix.receivingKey;
  // Unset, it is PIX_RECEIVING_KEY, whose own problems are reported under its name.
  if (read.raw('PIX_SENDER_KEY') !== undefined && (senderKey.length < 1 || senderKey.length > 77))
    read.problems.push('PIX_SENDER_KEY must be a Pix key (1 to 77 characters)');
  return {
    api: api ?? 'efi',
    efiBaseUrl: efiBaseUrl.replace(/\/+$/, ''),
    senderKey,
    sendConcurrency: read.int('PIX_SEND_CONCURRENCY', 1, { min: 1, max: 64 }),
    outcomeWaitMs: read.int('PIX_SEND_OUTCOME_WAIT_MS', 8_000, { min: 0, max: 60_000 }),
  };
}

/**
 * The sandbox's API Pix client credentials of development and tests, unless SANDBOX_PIX_CLIENT_ID
 * / SANDBOX_PIX_CLIENT_SECRET say otherwise: public on purpose, like a PSP's published sandbox
 * credentials, and the same values as sandbox/config.ts (DEV_PIX_CLIENT_ID / DEV_PIX_CLIENT_SECRET).
 * Never used in production (the sandbox refuses them there too).
 */
export const SANDBOX_PIX_CLIENT_ID = 'pix-sandbox-client';
export const SANDBOX_PIX_CLIENT_SECRET = 'pix-sandbox-secret';
/** The sandbox merchant's key (sandbox/payer.ts, SANDBOX_MERCHANT.pixKey). */
export const SANDBOX_PIX_RECEIVING_KEY = '11222333000181';

export const DEFAULT_MAIL_FROM = 'Pix Gateway <no-reply@localhost>';
export const DEFAULT_PLATFORM_INSTITUTION_NAME = 'Gateway Pagamentos IP';

function accountModelDefault(read: EnvReader, production: boolean): AccountModelDefault {
  const raw = read.raw('ACCOUNT_MODEL_DEFAULT') ?? (production ? 'connected' : 'platform');
  if (raw === 'platform' || raw === 'connected') return raw;
  read.problems.push('ACCOUNT_MODEL_DEFAULT must be platform or connected');
  return 'connected';
}

function connectionMasterKeys(read: EnvReader, credentialsEncryptionKey: string): MasterKeyRotation | null {
  const text = read.raw('CONNECTION_MASTER_KEYS');
  const currentKeyId = read.raw('CONNECTION_MASTER_KEY_ID');
  if (text === undefined && currentKeyId === undefined) return null;
  try {
    const rotation = { keys: text === undefined ? {} : parseMasterKeys(text), currentKeyId: currentKeyId ?? 'k1' };
    // Built once here so a wrong key, id or current id stops the start, not the first connection.
    if (credentialsEncryptionKey) credentialsKeyring(credentialsEncryptionKey, rotation);
    return rotation;
  } catch (err) {
    read.problems.push(`CONNECTION_MASTER_KEYS / CONNECTION_MASTER_KEY_ID: ${(err as Error).message}`);
    return null;
  }
}

function platformPspAccount(read: EnvReader, production: boolean): GatewayConfig['platformPspAccount'] {
  const conta = read.raw('PLATFORM_PSP_ACCOUNT_NUMBER') ?? (production ? undefined : '1000001');
  const document = read.raw('PLATFORM_PSP_ACCOUNT_DOCUMENT') ?? (production ? undefined : '11222333000181');
  if (conta === undefined && document === undefined) return null;
  if (conta === undefined || !/^\d{1,20}$/.test(conta)) {
    read.problems.push('PLATFORM_PSP_ACCOUNT_NUMBER must be the account number at the PSP (1 to 20 digits)');
    return null;
  }
  if (document === undefined || documentType(document) === null) {
    read.problems.push('PLATFORM_PSP_ACCOUNT_DOCUMENT must be the account holder’s valid CPF or CNPJ');
    return null;
  }
  return { conta, document: document.replace(/\D/g, '') };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration, refusing to start:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Reads variables and collects every problem instead of stopping at the first. */
class EnvReader {
  readonly problems: string[] = [];

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value === '' ? undefined : value;
  }

  /** The value as set, an empty string included (raw reads empty as unset). */
  present(name: string): string | undefined {
    return this.env[name];
  }

  secret(name: string): string {
    const value = this.raw(name);
    if (value === undefined) this.problems.push(`${name} is required`);
    return value ?? '';
  }

  int(name: string, fallback: number, range: { min: number; max?: number }): number {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    const max = range.max ?? Number.MAX_SAFE_INTEGER;
    if (!Number.isSafeInteger(n) || n < range.min || n > max) {
      this.problems.push(
        `${name} must be a whole number from ${range.min}${range.max === undefined ? ' up' : ` to ${range.max}`}`,
      );
      return fallback;
    }
    return n;
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    if (raw === 'true' || raw === 'false') return raw === 'true';
    this.problems.push(`${name} must be true or false`);
    return fallback;
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const read = new EnvReader(env);
  const mode = ENVIRONMENTS.find((e) => e === env.NODE_ENV);
  if (!mode)
    read.problems.push(
      `NODE_ENV must be one of ${ENVIRONMENTS.join(', ')} (anything else could run with development defaults)`,
    );
  const production = mode === 'production';

  const port = read.int('PORT', 3000, { min: 1, max: 65_535 });
  const databaseUrl = read.secret('DATABASE_URL');
  const migrationDatabaseUrl = read.raw('MIGRATION_DATABASE_URL') ?? databaseUrl;
  const providerApiKey = read.secret('PROVIDER_API_KEY');
  const callbackSecret = read.secret('PROVIDER_CALLBACK_SECRET');
  const credentialsEncryptionKey = read.secret('CREDENTIALS_ENCRYPTION_KEY');
  if (credentialsEncryptionKey && !isEncryptionKey(credentialsEncryptionKey)) {
    read.problems.push('CREDENTIALS_ENCRYPTION_KEY must be 32 bytes, as 64 hex characters or base64');
  }

  const providerBaseUrl = baseUrl(read, 'PROVIDER_BASE_URL', 'http://127.0.0.1:4010', production);
  const publicBaseUrl = baseUrl(read, 'PUBLIC_BASE_URL', `http://127.0.0.1:${port}`, production);
  const allowPrivateWebhookDestinations = read.bool('ALLOW_PRIVATE_WEBHOOK_DESTINATIONS', !production);
  if (production && allowPrivateWebhookDestinations) {
    read.problems.push(
      'ALLOW_PRIVATE_WEBHOOK_DESTINATIONS=true is refused in production: merchants could make the gateway call internal networks',
    );
  }
  const privateReceivers = parsePrivateReceivers(read.raw('WEBHOOK_PRIVATE_RECEIVERS') ?? '');
  if (!privateReceivers.ok)
    read.problems.push(
      `WEBHOOK_PRIVATE_RECEIVERS: "${privateReceivers.entry}" ${privateReceivers.problem} (docs/configuration.md)`,
    );

  const jwtSecrets = (read.raw('JWT_SECRETS') ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  if (jwtSecrets.some((x) => x.length < 32))
    read.problems.push('JWT_SECRETS must list keys of at least 32 characters each');
  if (production && jwtSecrets.length === 0) read.problems.push('JWT_SECRETS is required in production');
  const receiptSigningKey = read.raw('RECEIPT_SIGNING_KEY') ?? '';
  if (receiptSigningKey && receiptSigningKey.length < 32)
    read.problems.push('RECEIPT_SIGNING_KEY must be at least 32 characters');
  if (production && !receiptSigningKey)
    read.problems.push('RECEIPT_SIGNING_KEY is required in production (at least 32 characters)');
  // Bearer token of /metrics and /metrics/perf-db; unset: open in development/test, 404 in production (api/metrics/access.ts).
  const metricsToken = read.raw('METRICS_TOKEN') ?? null;
  if (metricsToken !== null && metricsToken.length < 32)
    read.problems.push('METRICS_TOKEN must be at least 32 characters');
  const smtpUrl = smtp(read, production);
  const mailFrom = read.raw('MAIL_FROM') ?? DEFAULT_MAIL_FROM;
  if (/[\r\n]/.test(mailFrom))
    read.problems.push('MAIL_FROM must be one line (a name and address, e.g. Pix Gateway <no-reply@example.com>)');

  const pixApiConfig = pixApi(read, production, providerBaseUrl, credentialsEncryptionKey);
  const temporalConnection = temporalConnectionFrom(read, production);
  const testLogDir = mode === 'test' ? (read.raw('GATEWAY_TEST_LOG_DIR') ?? null) : null;
  const passwordHashing = mode === 'test' ? passwordHashingOf(read) : 'owasp';

  const config: GatewayConfig = {
    env: mode ?? 'development',
    port,
    host: read.raw('HOST') ?? '127.0.0.1',
    publicBaseUrl,
    databaseUrl,
    migrationDatabaseUrl,
    temporal: {
      ...temporalConnection,
      namespace: read.raw('TEMPORAL_NAMESPACE') ?? 'default',
      taskQueue: read.raw('TEMPORAL_TASK_QUEUE') ?? 'gateway',
    },
    provider: {
      baseUrl: providerBaseUrl,
      apiKey: providerApiKey,
      callbackSecret,
      timeoutMs: read.int('PROVIDER_TIMEOUT_MS', 5_000, { min: 100, max: 120_000 }),
    },
    pixApi: pixApiConfig,
    pixTransfers: pixTransfers(read, production, pixApiConfig),
    credentialsEncryptionKey,
    defaultPixFeeBps: read.int('DEFAULT_PIX_FEE_BPS', 99, { min: 0, max: 10_000 }),
    defaultPixFeeFixedCents: read.int('DEFAULT_PIX_FEE_FIXED_CENTS', 0, { min: 0 }),
    defaultChargeTtlSeconds: read.int('DEFAULT_CHARGE_TTL_SECONDS', 3600, { min: 60, max: 30 * 86_400 }),
    // 0 would forget every key at once: a retried request would charge or pay twice.
    idempotencyTtlHours: read.int('IDEMPOTENCY_TTL_HOURS', 24, { min: 1 }),
    rateLimitPerMinute: read.int('RATE_LIMIT_PER_MINUTE', production ? 100 : 1000, { min: 1 }),
    checkoutStreams: {
      perCheckout: read.int('CHECKOUT_STREAMS_PER_CHECKOUT', 3, { min: 1, max: 100 }),
      perIp: read.int('CHECKOUT_STREAMS_PER_IP', 20, { min: 1, max: 10_000 }),
    },
    trustProxy: trustProxy(read),
    allowPrivateWebhookDestinations,
    webhookPrivateReceivers: privateReceivers.ok ? privateReceivers.receivers : [],
    webhookFirstAttemptLeaseSeconds: read.int('WEBHOOK_FIRST_ATTEMPT_LEASE_SECONDS', 30, { min: 1, max: 3_600 }),
    exposeBuildInfo: read.bool('EXPOSE_BUILD_INFO', false),
    build: {
      gitSha: read.raw('GIT_SHA') ?? null,
      buildId: read.raw('BUILD_ID') ?? null,
      builtAt: read.raw('BUILT_AT') ?? null,
    },
    log: { level: logLevel(read, mode === 'test' ? (testLogDir ? 'debug' : 'silent') : 'info'), testLogDir },
    platformInstitutionName: read.raw('PLATFORM_INSTITUTION_NAME') ?? DEFAULT_PLATFORM_INSTITUTION_NAME,
    platformPspAccount: platformPspAccount(read, production),
    connectionMasterKeys: connectionMasterKeys(read, credentialsEncryptionKey),
    accountModelDefault: accountModelDefault(read, production),
    receiptRenderThreads: read.raw('RECEIPT_RENDER_THREADS')
      ? read.int('RECEIPT_RENDER_THREADS', 1, { min: 1, max: 32 })
      : null,
    sandboxControlToken: production ? null : (read.raw('SANDBOX_CONTROL_TOKEN') ?? null),
    med: {
      // Unanswered by then: the default decision (ACCEPT) is applied (docs/api/med.md).
      analysisDeadlineMs: read.int('MED_ANALYSIS_DEADLINE_SECONDS', 7 * 86_400, { min: 1, max: 30 * 86_400 }) * 1000,
      reminderBeforeMs: read.int('MED_REMINDER_BEFORE_SECONDS', 86_400, { min: 0, max: 30 * 86_400 }) * 1000,
    },
    payouts: {
      chunkSize: read.int('PAYOUT_CHUNK_SIZE', 2500, { min: 1, max: 10_000 }),
      parallelChunks: read.int('PAYOUT_PARALLEL_CHUNKS', 2, { min: 1, max: 100 }),
      itemConcurrency: read.int('PAYOUT_ITEM_CONCURRENCY', 20, { min: 1, max: 1000 }),
      sliceSize: read.int('PAYOUT_SLICE_SIZE', 2500, { min: 1, max: 10_000 }),
    },
    auth: { jwtSecrets, secureCookies: read.bool('SECURE_COOKIES', production), passwordHashing },
    storage: storage(read, production, credentialsEncryptionKey),
    smtpUrl,
    mailFrom,
    receiptSigningKey,
    metricsToken,
    workflowBundlePath: read.raw('WORKFLOW_BUNDLE') ?? null,
    workerHealthPort: read.raw('WORKER_HEALTH_PORT')
      ? read.int('WORKER_HEALTH_PORT', 0, { min: 1, max: 65_535 })
      : null,
  };
  if (production && !config.auth.secureCookies)
    read.problems.push(
      'SECURE_COOKIES=false is refused in production: the refresh cookie would travel over plain http',
    );
  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return config;
}

/**
 * What a development process leaves open, for the line it logs at start (api/server.ts,
 * workers/main.ts): development mode is the local stack (`npm start`, compose's development
 * profile), not a deployment. Null outside development.
 */
export function developmentWarning(config: GatewayConfig): string | null {
  if (config.env !== 'development') return null;
  const open = [
    config.allowPrivateWebhookDestinations ? 'webhooks may reach private networks' : null,
    config.metricsToken === null ? '/metrics is open' : null,
    'the checkout page pays at the sandbox ("Simular pagamento")',
    config.auth.jwtSecrets.length === 0 ? 'keys are derived from CREDENTIALS_ENCRYPTION_KEY' : null,
    config.auth.secureCookies ? null : 'cookies are not Secure',
  ].filter((x): x is string => x !== null);
  return `NODE_ENV=development: a local stack, not a deployment (${open.join('; ')}); production runs NODE_ENV=production (docs/operations.md)`;
}

function logLevel(read: EnvReader, fallback: LogLevel): LogLevel {
  const raw = read.raw('LOG_LEVEL');
  if (raw === undefined) return fallback;
  const level = LOG_LEVELS.find((l) => l === raw);
  if (!level) read.problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  return level ?? fallback;
}

/**
 * The Temporal frontend's address and TLS. The production frontend (docker/temporal-server.yaml,
 * docker-compose.yml) requires mutual TLS: TEMPORAL_TLS_CERT + TEMPORAL_TLS_KEY are the client
 * certificate (required in production), TEMPORAL_TLS_CA the CA that signed the frontend's
 * certificate (else the public CAs), TEMPORAL_TLS_SERVER_NAME the name on it when the address's
 * host is not. Any of them turns TLS on; none: plain TCP (the dev server of `npm start` and the
 * tests). Files are read here, once, and proven usable (core/net/clientTls.ts).
 */
function temporalConnectionFrom(read: EnvReader, production: boolean): TemporalConnectionSettings {
  const { tls, problems } = readClientTls({
    certFile: { name: 'TEMPORAL_TLS_CERT', value: read.raw('TEMPORAL_TLS_CERT') },
    keyFile: { name: 'TEMPORAL_TLS_KEY', value: read.raw('TEMPORAL_TLS_KEY') },
    caFile: { name: 'TEMPORAL_TLS_CA', value: read.raw('TEMPORAL_TLS_CA') },
  });
  read.problems.push(...problems);
  if (production && problems.length === 0 && !tls?.identity)
    read.problems.push(
      'TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY are required in production: the Temporal frontend requires a client certificate',
    );
  return {
    address: read.raw('TEMPORAL_ADDRESS') ?? '127.0.0.1:7233',
    tls,
    serverName: read.raw('TEMPORAL_TLS_SERVER_NAME') ?? null,
  };
}

/**
 * The operator CLI's way to Temporal: the same variables and checks as the services'
 * (TEMPORAL_ADDRESS, TEMPORAL_TLS_*), from its environment (cliEnvironment's `all`); the client
 * certificate is not required, whatever NODE_ENV says. Throws a ConfigError naming the variables.
 */
export function temporalConnectionForCli(env: NodeJS.ProcessEnv): TemporalConnectionSettings {
  const read = new EnvReader(env);
  const settings = temporalConnectionFrom(read, false);
  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return settings;
}

/** Shorter HMAC keys could be guessed; 32 characters is 128+ bits for any random encoding. */
const MIN_UPLOAD_SECRET_LENGTH = 32;
/** The webhook path secret is guessed by whoever can reach the URL: as long as the other keys. */
const MIN_WEBHOOK_SECRET_LENGTH = 32;

/**
 * API Pix: real PSP settings when PIX_API_BASE_URL is set or in production (then the token URL,
 * client id and secret and the receiving key are required, and in production a client
 * certificate and the webhook secret too); otherwise the sandbox defaults. Certificate files are
 * read here, once, and proven usable (core/net/clientTls.ts).
 */
function pixApi(
  read: EnvReader,
  production: boolean,
  providerBaseUrl: string,
  credentialsEncryptionKey: string,
): PixApiConfig {
  const sandbox = !production && read.raw('PIX_API_BASE_URL') === undefined;
  const sandboxBase = providerBaseUrl.replace(/\/+$/, '');
  const realPsp = (name: string): string => {
    const value = read.raw(name);
    if (value === undefined)
      read.problems.push(`${name} is required${production ? ' in production' : ' with PIX_API_BASE_URL'}`);
    return value ?? '';
  };
  const baseUrl = sandbox ? `${sandboxBase}/api/v2` : pixApiUrl(read, 'PIX_API_BASE_URL', production);
  const tokenUrl =
    read.raw('PIX_API_TOKEN_URL') !== undefined || !sandbox
      ? pixApiUrl(read, 'PIX_API_TOKEN_URL', production)
      : `${sandboxBase}/oauth/token`;
  const clientId = sandbox
    ? (read.raw('PIX_API_CLIENT_ID') ?? read.raw('SANDBOX_PIX_CLIENT_ID') ?? SANDBOX_PIX_CLIENT_ID)
    : realPsp('PIX_API_CLIENT_ID');
  const clientSecret = sandbox
    ? (read.raw('PIX_API_CLIENT_SECRET') ?? read.raw('SANDBOX_PIX_CLIENT_SECRET') ?? SANDBOX_PIX_CLIENT_SECRET)
    : realPsp('PIX_API_CLIENT_SECRET');
  const receivingKey = sandbox
    ? (read.raw('PIX_RECEIVING_KEY') ?? SANDBOX_PIX_RECEIVING_KEY)
    : realPsp('PIX_RECEIVING_KEY');
  if (receivingKey.length > 77) read.problems.push('PIX_RECEIVING_KEY must be a Pix key (at most 77 characters)');

  const { tls, problems } = readClientTls({
    certFile: { name: 'PIX_API_CERT_FILE', value: read.raw('PIX_API_CERT_FILE') },
    keyFile: { name: 'PIX_API_KEY_FILE', value: read.raw('PIX_API_KEY_FILE') },
    pfxFile: { name: 'PIX_API_PFX_FILE', value: read.raw('PIX_API_PFX_FILE') },
    // Set to empty, it is an empty passphrase (Efí issues its .p12 files without one), not unset.
    pfxPassphrase: { name: 'PIX_API_PFX_PASSPHRASE', value: read.present('PIX_API_PFX_PASSPHRASE') },
    caFile: { name: 'PIX_API_CA_FILE', value: read.raw('PIX_API_CA_FILE') },
  });
  read.problems.push(...problems);
  if (production && problems.length === 0 && !tls?.identity) {
    read.problems.push(
      'a client certificate is required in production: PIX_API_CERT_FILE + PIX_API_KEY_FILE, or PIX_API_PFX_FILE + PIX_API_PFX_PASSPHRASE',
    );
  }

  let webhookSecret = read.raw('PIX_WEBHOOK_SECRET');
  if (
    webhookSecret !== undefined &&
    (webhookSecret.length < MIN_WEBHOOK_SECRET_LENGTH || !/^[A-Za-z0-9_-]+$/.test(webhookSecret))
  ) {
    read.problems.push(
      `PIX_WEBHOOK_SECRET must be at least ${MIN_WEBHOOK_SECRET_LENGTH} characters of A-Z, a-z, 0-9, "-" and "_" (it is a URL path segment)`,
    );
  }
  if (webhookSecret === undefined) {
    if (production)
      read.problems.push(
        `PIX_WEBHOOK_SECRET is required in production (at least ${MIN_WEBHOOK_SECRET_LENGTH} URL-safe characters)`,
      );
    else {
      // Stable across restarts like the key it comes from, so the registered URL stays valid.
      const base = credentialsEncryptionKey || crypto.randomBytes(32).toString('hex');
      webhookSecret = crypto.createHmac('sha256', base).update('pix-gateway pix webhook path v1').digest('hex');
    }
  }

  return {
    baseUrl,
    tokenUrl,
    clientId,
    clientSecret,
    tls,
    receivingKey,
    webhookSecret: webhookSecret ?? '',
    allowPlainHttp: !production,
    sandbox,
    automaticoReceiver: automaticoReceiver(read, sandbox),
  };
}

// Our names of the account types (core/pixAutomatico/wireNames.ts): not environment variables.
const RECEIVER_ACCOUNT_TYPES = Object.keys(ACCOUNT_TYPE_TO_WIRE) as AutomaticoReceiverAccount['accountType'][];
/** The sandbox PSP's account of its development token (sandbox/pixApi: `recebedor.conta` must be it). */
const SANDBOX_RECEIVER_ACCOUNT = '1000001';

/** PIX_AUTOMATICO_RECEIVER_ACCOUNT, _BRANCH, _ACCOUNT_TYPE: the cobr's `recebedor`; sandbox defaults. */
function automaticoReceiver(read: EnvReader, sandbox: boolean): AutomaticoReceiverAccount | null {
  const account = read.raw('PIX_AUTOMATICO_RECEIVER_ACCOUNT') ?? (sandbox ? SANDBOX_RECEIVER_ACCOUNT : undefined);
  const branch = read.raw('PIX_AUTOMATICO_RECEIVER_BRANCH') ?? (sandbox ? '0001' : undefined);
  const type = read.raw('PIX_AUTOMATICO_RECEIVER_ACCOUNT_TYPE') ?? RECEIVER_ACCOUNT_TYPES[0];
  if (account === undefined) return null;
  if (!/^[0-9]{1,20}$/.test(account)) read.problems.push('PIX_AUTOMATICO_RECEIVER_ACCOUNT must be 1 to 20 digits');
  if (branch !== undefined && !/^[0-9]{1,4}$/.test(branch))
    read.problems.push('PIX_AUTOMATICO_RECEIVER_BRANCH must be 1 to 4 digits');
  if (!(RECEIVER_ACCOUNT_TYPES as string[]).includes(type))
    read.problems.push(`PIX_AUTOMATICO_RECEIVER_ACCOUNT_TYPE must be one of ${RECEIVER_ACCOUNT_TYPES.join(', ')}`);
  return { account, branch: branch ?? null, accountType: type as AutomaticoReceiverAccount['accountType'] };
}

/** https, not loopback, in production; elsewhere https, or http on loopback only (a local PSP simulator). */
function pixApiUrl(read: EnvReader, name: string, production: boolean): string {
  const raw = read.raw(name);
  if (raw === undefined) {
    read.problems.push(`${name} is required${production ? ' in production' : ' with PIX_API_BASE_URL'} (an https URL)`);
    return '';
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    read.problems.push(`${name} must be an absolute https URL`);
    return raw;
  }
  if (url.protocol === 'https:') {
    if (production && isLoopback(url.hostname)) read.problems.push(`${name} must not point at loopback in production`);
  } else if (url.protocol !== 'http:' || production || !isLoopback(url.hostname)) {
    read.problems.push(`${name} must use https${production ? '' : ' (http only on loopback, outside production)'}`);
  }
  return raw;
}

/**
 * S3 when S3_ENDPOINT is set (then bucket and keys are required), else the local store, whose
 * upload URLs are signed with UPLOAD_SIGNING_SECRET. Production must set that secret when the
 * local store is used; development and tests derive one from CREDENTIALS_ENCRYPTION_KEY (a
 * labelled HMAC, so neither key reveals the other), which survives restarts like that key does.
 */
function storage(read: EnvReader, production: boolean, credentialsEncryptionKey: string): StorageConfig {
  const endpoint = read.raw('S3_ENDPOINT');
  let s3: StorageConfig['s3'] = null;
  if (endpoint !== undefined) {
    try {
      const url = new URL(endpoint);
      if (url.protocol !== 'https:' && url.protocol !== 'http:')
        read.problems.push('S3_ENDPOINT must be an http(s) URL');
      else if (production && url.protocol !== 'https:') read.problems.push('S3_ENDPOINT must use https in production');
    } catch {
      read.problems.push('S3_ENDPOINT must be an absolute http(s) URL');
    }
    s3 = {
      endpoint,
      bucket: read.secret('S3_BUCKET'),
      region: read.raw('S3_REGION') ?? 'us-east-1',
      accessKeyId: read.secret('S3_ACCESS_KEY_ID'),
      secretAccessKey: read.secret('S3_SECRET_ACCESS_KEY'),
      publicBaseUrl: read.raw('S3_PUBLIC_BASE_URL'),
    };
  }
  let secret = read.raw('UPLOAD_SIGNING_SECRET');
  if (secret !== undefined && secret.length < MIN_UPLOAD_SECRET_LENGTH) {
    read.problems.push(`UPLOAD_SIGNING_SECRET must be at least ${MIN_UPLOAD_SECRET_LENGTH} characters`);
  }
  if (secret === undefined) {
    if (production && !s3)
      read.problems.push('UPLOAD_SIGNING_SECRET is required in production unless S3_ENDPOINT is set');
    else if (!production) {
      const base = credentialsEncryptionKey || crypto.randomBytes(32).toString('hex');
      secret = crypto.createHmac('sha256', base).update('pix-gateway upload signing v1').digest('hex');
    }
  }
  return { uploadsDir: read.raw('UPLOADS_DIR') ?? '.data/uploads', uploadSigningSecret: secret ?? '', s3 };
}

function isEncryptionKey(value: string): boolean {
  try {
    parseKey(value);
    return true;
  } catch {
    return false;
  }
}

/** In production a base URL must be given, https, and not loopback (the sandbox default is none of these). */
function baseUrl(read: EnvReader, name: string, devDefault: string, production: boolean): string {
  const raw = read.raw(name);
  if (raw === undefined) {
    if (production) read.problems.push(`${name} is required in production (an https URL)`);
    return devDefault;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    read.problems.push(`${name} must be an absolute http(s) URL`);
    return raw;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') read.problems.push(`${name} must be an http(s) URL`);
  else if (production && url.protocol !== 'https:') read.problems.push(`${name} must use https in production`);
  else if (production && isLoopback(url.hostname))
    read.problems.push(`${name} must not point at loopback in production`);
  return raw;
}

/**
 * Outside development and test SMTP_URL is required: without it login codes would queue and
 * never arrive. The URL may carry a password, so messages name the variable only.
 */
function smtp(read: EnvReader, required: boolean): string | null {
  const raw = read.raw('SMTP_URL');
  if (raw === undefined) {
    if (required) read.problems.push('SMTP_URL is required outside development and test (smtp:// or smtps://)');
    return null;
  }
  let protocol: string;
  try {
    protocol = new URL(raw).protocol;
  } catch {
    read.problems.push('SMTP_URL must be an absolute smtp:// or smtps:// URL');
    return null;
  }
  if (protocol !== 'smtp:' && protocol !== 'smtps:') read.problems.push('SMTP_URL must be an smtp:// or smtps:// URL');
  return raw;
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (net.isIPv4(host)) return host.startsWith('127.') || host.startsWith('0.');
  if (net.isIPv6(host)) return host === '::1' || host === '::' || /^::ffff:(127\.|7f)/.test(host);
  return false;
}

const PROXY_ADDR_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * `true` (trust every hop) is refused: any client could then choose its own address with
 * X-Forwarded-For and escape the per-IP limit.
 */
function trustProxy(read: EnvReader): TrustProxy {
  const raw = read.raw('TRUST_PROXY');
  if (raw === undefined || raw === 'false') return false;
  if (/^\d+$/.test(raw)) return Number(raw);
  const entries = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.length > 0 && entries.every(isProxyEntry)) return entries;
  read.problems.push(
    'TRUST_PROXY must be false, a hop count (e.g. 1), or a comma-separated list of proxy addresses / CIDR ranges (loopback, linklocal, uniquelocal allowed)',
  );
  return false;
}

function isProxyEntry(entry: string): boolean {
  if (PROXY_ADDR_NAMES.has(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = net.isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  const bits = family === 4 ? 32 : 128;
  return /^\d+$/.test(prefix) && Number(prefix) <= bits;
}

/**
 * GATEWAY_DATA_DIR: the local stack's folder (`npm start`'s data, and the local-env.json the CLI
 * reads: cli/lib/localEnv.ts), resolved against the checkout. Default: .data. Production: not used.
 */
export function gatewayDataDir(root: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(root, env.GATEWAY_DATA_DIR || '.data');
}

/**
 * The operator CLI (`npm run gateway`): it reads the services' own variables (DATABASE_URL,
 * CREDENTIALS_ENCRYPTION_KEY, PROVIDER_BASE_URL, PROVIDER_API_KEY, PROVIDER_TIMEOUT_MS,
 * TEMPORAL_ADDRESS and TEMPORAL_TLS_* (temporalConnectionForCli), TEMPORAL_NAMESPACE, LOG_LEVEL,
 * and for `provider webhook register` all of loadConfig's) one at a time, when a command needs
 * one, from the environment, else from the running `npm start` stack's .data/local-env.json
 * (`local`, cli/lib/localEnv.ts); plus its own:
 * - MIGRATION_DATABASE_URL: `migrate`'s login (the migration role), else DATABASE_URL.
 * - GATEWAY_USER_PASSWORD: `user create`'s password when --password is not given (an argument is
 *   visible in `ps`; the environment is not). Default: none, the command then refuses.
 * - MAIL_DIR: where `npm start`'s local mail sink keeps what it received (`mail list|show`).
 *   Default: .data/mail. Production: not used (mail goes to SMTP_URL).
 * - SANDBOX_BASE_URL: the bundled sandbox the `sandbox …` commands call. Default:
 *   http://127.0.0.1:4010. Production: not used (there is no sandbox).
 * - SANDBOX_CONTROL_TOKEN: the token the sandbox's control routes want (see GatewayConfig).
 *   Default: none (open in development and tests).
 */
export interface CliEnvironment {
  /** A variable the command needs: its value, or an error naming it (never a value). */
  required(name: string): string;
  optional(name: string): string | undefined;
  /** Every variable, the environment over the local stack's, for loadConfig. */
  readonly all: NodeJS.ProcessEnv;
  /** The CLI's own log settings, read as loadConfig reads them (LOG_LEVEL, GATEWAY_TEST_LOG_DIR under NODE_ENV=test). */
  readonly log: LogConfig;
}

export function cliEnvironment(
  local: Record<string, string | undefined>,
  env: NodeJS.ProcessEnv = process.env,
): CliEnvironment {
  const all: NodeJS.ProcessEnv = { ...local, ...env };
  const optional = (name: string) => (all[name] === '' ? undefined : all[name]);
  const read = new EnvReader(all);
  const testLogDir = all.NODE_ENV === 'test' ? (read.raw('GATEWAY_TEST_LOG_DIR') ?? null) : null;
  const level = logLevel(read, all.NODE_ENV === 'test' ? (testLogDir ? 'debug' : 'silent') : 'info');
  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return {
    required(name) {
      const value = optional(name);
      if (!value) throw new Error(`${name} is not set and no running stack was found (start it with npm start)`);
      return value;
    },
    optional,
    all,
    log: { level, testLogDir },
  };
}

/** PASSWORD_HASHING (read under NODE_ENV=test only): owasp (the default) or test. */
function passwordHashingOf(read: EnvReader): PasswordHashing {
  const raw = read.raw('PASSWORD_HASHING') ?? 'owasp';
  if ((PASSWORD_HASHINGS as readonly string[]).includes(raw)) return raw as PasswordHashing;
  read.problems.push(`PASSWORD_HASHING must be one of ${PASSWORD_HASHINGS.join(', ')}`);
  return 'owasp';
}
