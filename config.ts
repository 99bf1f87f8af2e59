/**
 * Process configuration, read once from the environment. Every secret has no default in
 * production; in development and tests the start/test scripts generate local ones.
 */
export interface GatewayConfig {
  env: 'development' | 'test' | 'production';
  port: number;
  host: string;
  /** Base URL the provider uses to reach our callback route. */
  publicBaseUrl: string;
  databaseUrl: string;
  temporal: { address: string; namespace: string; taskQueue: string };
  provider: { baseUrl: string; apiKey: string; callbackSecret: string; timeoutMs: number };
  /** 32-byte key (hex or base64) that encrypts API client secrets at rest. */
  credentialsEncryptionKey: string;
  /** Platform fee on Pix charges, applied when a merchant has no own fee set. */
  defaultPixFeeBps: number;
  defaultPixFeeFixedCents: number;
  /** Lifetime of a Pix charge when the caller gives no expiresAt. */
  defaultChargeTtlSeconds: number;
  idempotencyTtlHours: number;
  rateLimitPerMinute: number;
  allowPrivateWebhookDestinations: boolean;
  payouts: { chunkSize: number; parallelChunks: number; itemConcurrency: number };
}

function required(name: string, env: NodeJS.ProcessEnv): string {
  const value = env[name];
  if (!value) throw new Error(`Missing required environment variable ${name}`);
  return value;
}

function int(name: string, env: NodeJS.ProcessEnv, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n)) throw new Error(`Environment variable ${name} must be an integer`);
  return n;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const mode = env.NODE_ENV === 'production' ? 'production' : env.NODE_ENV === 'test' ? 'test' : 'development';
  const port = int('PORT', env, 3000);
  const host = env.HOST ?? '127.0.0.1';
  return {
    env: mode,
    port,
    host,
    publicBaseUrl: env.PUBLIC_BASE_URL ?? `http://127.0.0.1:${port}`,
    databaseUrl: required('DATABASE_URL', env),
    temporal: {
      address: env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
      namespace: env.TEMPORAL_NAMESPACE ?? 'default',
      taskQueue: env.TEMPORAL_TASK_QUEUE ?? 'gateway',
    },
    provider: {
      baseUrl: env.PROVIDER_BASE_URL ?? 'http://127.0.0.1:4010',
      apiKey: required('PROVIDER_API_KEY', env),
      callbackSecret: required('PROVIDER_CALLBACK_SECRET', env),
      timeoutMs: int('PROVIDER_TIMEOUT_MS', env, 5_000),
    },
    credentialsEncryptionKey: required('CREDENTIALS_ENCRYPTION_KEY', env),
    defaultPixFeeBps: int('DEFAULT_PIX_FEE_BPS', env, 99),
    defaultPixFeeFixedCents: int('DEFAULT_PIX_FEE_FIXED_CENTS', env, 0),
    defaultChargeTtlSeconds: int('DEFAULT_CHARGE_TTL_SECONDS', env, 3600),
    idempotencyTtlHours: int('IDEMPOTENCY_TTL_HOURS', env, 24),
    rateLimitPerMinute: int('RATE_LIMIT_PER_MINUTE', env, mode === 'production' ? 100 : 1000),
    payouts: {
      chunkSize: int('PAYOUT_CHUNK_SIZE', env, 500),
      parallelChunks: int('PAYOUT_PARALLEL_CHUNKS', env, 2),
      itemConcurrency: int('PAYOUT_ITEM_CONCURRENCY', env, 20),
    },
    allowPrivateWebhookDestinations: (env.ALLOW_PRIVATE_WEBHOOK_DESTINATIONS ?? (mode === 'production' ? 'false' : 'true')) === 'true',
  };
}
