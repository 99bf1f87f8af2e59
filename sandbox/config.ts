/**
 * The sandbox server's settings from the environment. The control routes (/sandbox/*) pay any
 * charge and switch faults on, so outside development and tests they need a token; likewise the
 * API Pix client credentials, which have development values (below) only there.
 */
import fs from 'node:fs';
import path from 'node:path';

/**
 * API Pix OAuth2 client of development and tests (SANDBOX_PIX_CLIENT_ID / SANDBOX_PIX_CLIENT_SECRET
 * unset). Public on purpose, like a PSP's published sandbox credentials: the gateway uses the same
 * values when PIX_API_CLIENT_ID / PIX_API_CLIENT_SECRET are unset and it talks to this sandbox.
 */
export const DEV_PIX_CLIENT_ID = 'pix-sandbox-client';
export const DEV_PIX_CLIENT_SECRET = 'pix-sandbox-secret';

/** PEM files for https, and for mutual TLS when a client CA is given (sandbox/listen.ts). */
export interface SandboxTlsConfig {
  cert: string;
  key: string;
  /** Client certificates must chain to this CA; absent: https without client certificates. */
  clientCa?: string;
  /**
   * The client CA's private key (PKCS#8 PEM): with it the sandbox signs each new account's client
   * certificate with the client CA, so the handshake accepts them (accountCertificates.ts).
   */
  clientCaKey?: string;
}

export interface SandboxConfig {
  apiKey: string;
  callbackSecret: string;
  port: number;
  host: string;
  /** Required unless NODE_ENV is development or test. */
  controlToken: string | undefined;
  /** Where the provider's state lives across restarts. */
  dataFile: string;
  /** SANDBOX_OPEN_INFRACTION_RATE: probability (0..1) that a payment gets a Pix infraction (MED). */
  openInfractionRate: number;
  pixClientId: string;
  pixClientSecret: string;
  /** SANDBOX_PIX_TOKEN_TTL_SECONDS (3600). */
  pixTokenTtlSeconds: number;
  /** SANDBOX_PIX_KEYS, comma-separated; undefined: the sandbox's own key. */
  pixReceivingKeys: string[] | undefined;
  /** SANDBOX_LOCATION_HOST: host[:port] written in payload locations (the Host of each call when unset). */
  locationHost: string | undefined;
  /**
   * SANDBOX_TLS_CERT_FILE + SANDBOX_TLS_KEY_FILE (+ SANDBOX_TLS_CLIENT_CA_FILE, + its key
   * SANDBOX_TLS_CLIENT_CA_KEY_FILE); plain http when unset.
   */
  tls: SandboxTlsConfig | undefined;
  /** SANDBOX_EFI_SEND_SETTLE_MS (150): how long an Efí send reads EM_PROCESSAMENTO; 0 allowed. */
  efiSendSettleMs: number;
  /** SANDBOX_EFI_OPENING_BALANCE_CENTS (100000000000, R$ 1 billion): the Efí account's opening balance. */
  efiOpeningBalanceCents: number;
}

export const DEFAULT_EFI_SEND_SETTLE_MS = 150;
export const DEFAULT_EFI_OPENING_BALANCE_CENTS = 100_000_000_000;

const OPEN_CONTROL_ENVIRONMENTS = new Set(['development', 'test']);
/** The checkout, or the build's directory when this runs compiled from its dist/ (not dist/ itself: the image's /app/.data is writable, dist/ is not). */
const ROOT =
  path.basename(path.join(__dirname, '..')) === 'dist' ? path.join(__dirname, '..', '..') : path.join(__dirname, '..');
export const DEFAULT_SANDBOX_DATA_FILE = path.join(ROOT, '.data', 'sandbox', 'state.jsonl');

export function readSandboxConfig(env: NodeJS.ProcessEnv): SandboxConfig {
  const open = OPEN_CONTROL_ENVIRONMENTS.has(env.NODE_ENV ?? '');
  const missing = [
    !env.PROVIDER_API_KEY && 'PROVIDER_API_KEY',
    !env.PROVIDER_CALLBACK_SECRET && 'PROVIDER_CALLBACK_SECRET',
  ].filter(Boolean);
  const controlToken = env.SANDBOX_CONTROL_TOKEN || undefined;
  if (!controlToken && !open) {
    missing.push('SANDBOX_CONTROL_TOKEN (required unless NODE_ENV is development or test)');
  }
  if (!open && !(env.SANDBOX_PIX_CLIENT_ID && env.SANDBOX_PIX_CLIENT_SECRET)) {
    missing.push(
      'SANDBOX_PIX_CLIENT_ID and SANDBOX_PIX_CLIENT_SECRET (required unless NODE_ENV is development or test)',
    );
  }
  if (missing.length > 0) throw new Error(`missing required environment variable(s): ${missing.join(', ')}`);
  const port = Number(env.SANDBOX_PORT ?? 4010);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('SANDBOX_PORT must be an integer 0..65535');
  return {
    apiKey: env.PROVIDER_API_KEY as string,
    callbackSecret: env.PROVIDER_CALLBACK_SECRET as string,
    port,
    host: env.SANDBOX_HOST ?? '127.0.0.1',
    controlToken,
    dataFile: env.SANDBOX_DATA_FILE || DEFAULT_SANDBOX_DATA_FILE,
    openInfractionRate: readRate(env.SANDBOX_OPEN_INFRACTION_RATE),
    pixClientId: env.SANDBOX_PIX_CLIENT_ID || DEV_PIX_CLIENT_ID,
    pixClientSecret: env.SANDBOX_PIX_CLIENT_SECRET || DEV_PIX_CLIENT_SECRET,
    pixTokenTtlSeconds: readTtl(env.SANDBOX_PIX_TOKEN_TTL_SECONDS),
    pixReceivingKeys: env.SANDBOX_PIX_KEYS
      ? env.SANDBOX_PIX_KEYS.split(',')
          .map((k) => k.trim())
          .filter(Boolean)
      : undefined,
    locationHost: env.SANDBOX_LOCATION_HOST || undefined,
    tls: readTls(env),
    efiSendSettleMs: readWhole(
      env.SANDBOX_EFI_SEND_SETTLE_MS,
      'SANDBOX_EFI_SEND_SETTLE_MS',
      DEFAULT_EFI_SEND_SETTLE_MS,
    ),
    efiOpeningBalanceCents: readWhole(
      env.SANDBOX_EFI_OPENING_BALANCE_CENTS,
      'SANDBOX_EFI_OPENING_BALANCE_CENTS',
      DEFAULT_EFI_OPENING_BALANCE_CENTS,
    ),
  };
}

/** A whole number, 0 or more (fallback when unset or empty). */
function readWhole(raw: string | undefined, name: string, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a whole number, 0 or more`);
  return value;
}

function readRate(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 0;
  const rate = Number(raw);
  if (!(rate >= 0 && rate <= 1)) throw new Error('SANDBOX_OPEN_INFRACTION_RATE must be a number between 0 and 1');
  return rate;
}

function readTtl(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 3600;
  const ttl = Number(raw);
  if (!Number.isInteger(ttl) || ttl < 1)
    throw new Error('SANDBOX_PIX_TOKEN_TTL_SECONDS must be a whole number of seconds, at least 1');
  return ttl;
}

/** The files are read here, at start: a wrong path fails the start, not the first handshake. */
function readTls(env: NodeJS.ProcessEnv): SandboxTlsConfig | undefined {
  const {
    SANDBOX_TLS_CERT_FILE: certFile,
    SANDBOX_TLS_KEY_FILE: keyFile,
    SANDBOX_TLS_CLIENT_CA_FILE: caFile,
    SANDBOX_TLS_CLIENT_CA_KEY_FILE: caKeyFile,
  } = env;
  if (!certFile && !keyFile && !caFile && !caKeyFile) return undefined;
  if (!certFile || !keyFile)
    throw new Error(
      'SANDBOX_TLS_CERT_FILE and SANDBOX_TLS_KEY_FILE go together (SANDBOX_TLS_CLIENT_CA_FILE needs both)',
    );
  if (caKeyFile && !caFile)
    throw new Error('SANDBOX_TLS_CLIENT_CA_KEY_FILE is the key of SANDBOX_TLS_CLIENT_CA_FILE: set both');
  const read = (file: string, name: string) => {
    try {
      return fs.readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`${name}: cannot read ${file} (${(err as Error).message})`);
    }
  };
  return {
    cert: read(certFile, 'SANDBOX_TLS_CERT_FILE'),
    key: read(keyFile, 'SANDBOX_TLS_KEY_FILE'),
    ...(caFile ? { clientCa: read(caFile, 'SANDBOX_TLS_CLIENT_CA_FILE') } : {}),
    ...(caKeyFile ? { clientCaKey: read(caKeyFile, 'SANDBOX_TLS_CLIENT_CA_KEY_FILE') } : {}),
  };
}
