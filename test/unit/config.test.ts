/**
 * loadConfig refuses a fail-open configuration (M5): unknown environments, production URLs that
 * are unset, plain http or loopback, private webhook destinations in production, missing
 * secrets, negative fees, a zero idempotency TTL, an unsafe TRUST_PROXY. Every problem is
 * listed at once, and no secret value ever appears in the message.
 */
import { ConfigError, loadConfig } from '../../config';

const SECRETS = {
  PROVIDER_API_KEY: 'prov-key-SHOULD-NOT-LEAK',
  PROVIDER_CALLBACK_SECRET: 'callback-secret-SHOULD-NOT-LEAK',
  CREDENTIALS_ENCRYPTION_KEY: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
  UPLOAD_SIGNING_SECRET: 'upload-signing-secret-SHOULD-NOT-LEAK-0123456789',
  SMTP_URL: 'smtps://mailer:smtp-password-SHOULD-NOT-LEAK@smtp.example.com:465',
  JWT_SECRETS: 'jwt-signing-key-SHOULD-NOT-LEAK-0123456789abcdef,jwt-old-key-SHOULD-NOT-LEAK-0123456789abcdef',
  RECEIPT_SIGNING_KEY: 'receipt-signing-key-SHOULD-NOT-LEAK-0123456789',
};

const production = (): NodeJS.ProcessEnv => ({
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://gateway:db-password-SHOULD-NOT-LEAK@db.internal:5432/gateway',
  PROVIDER_BASE_URL: 'https://psp.example.com',
  PUBLIC_BASE_URL: 'https://api.gateway.example.com',
  ...SECRETS,
});

const development = (): NodeJS.ProcessEnv => ({ ...production(), NODE_ENV: 'development', PROVIDER_BASE_URL: undefined, PUBLIC_BASE_URL: undefined, SMTP_URL: undefined });

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as Error).message;
    for (const secret of [...Object.values(SECRETS), 'db-password-SHOULD-NOT-LEAK', 'smtp-password-SHOULD-NOT-LEAK', 'not-a-32-byte-key-SHOULD-NOT-LEAK']) expect(message).not.toContain(secret);
    return (err as ConfigError).problems;
  }
  return [];
}

describe('loadConfig', () => {
  it('accepts a complete production configuration, with safe defaults', () => {
    const config = loadConfig(production());
    expect(config.env).toBe('production');
    expect(config.allowPrivateWebhookDestinations).toBe(false);
    expect(config.trustProxy).toBe(false);
    expect(config.rateLimitPerMinute).toBe(100);
    expect(config.exposeBuildInfo).toBe(false);
  });

  it('accepts development and test with local defaults', () => {
    expect(loadConfig(development()).provider.baseUrl).toBe('http://127.0.0.1:4010');
    expect(loadConfig({ ...development(), NODE_ENV: 'test' }).env).toBe('test');
  });

  it.each([[undefined], [''], ['staging'], ['prod'], ['Production']])('refuses NODE_ENV=%p: only development, test or production', (value) => {
    expect(problemsOf({ ...production(), NODE_ENV: value })).toEqual([expect.stringContaining('NODE_ENV')]);
  });

  it.each([
    ['unset', undefined],
    ['plain http', 'http://psp.example.com'],
    ['loopback IPv4', 'https://127.0.0.1:4010'],
    ['loopback name', 'https://localhost:4010'],
    ['loopback IPv6', 'https://[::1]:4010'],
    ['not a URL', 'psp.example.com'],
  ])('refuses, in production, a provider and public base URL that is %s', (_what, url) => {
    const problems = problemsOf({ ...production(), PROVIDER_BASE_URL: url, PUBLIC_BASE_URL: url });
    expect(problems).toEqual([expect.stringContaining('PROVIDER_BASE_URL'), expect.stringContaining('PUBLIC_BASE_URL')]);
  });

  it('refuses private webhook destinations in production', () => {
    expect(problemsOf({ ...production(), ALLOW_PRIVATE_WEBHOOK_DESTINATIONS: 'true' })).toEqual([expect.stringContaining('ALLOW_PRIVATE_WEBHOOK_DESTINATIONS')]);
  });

  it('refuses missing or malformed secrets in every mode, naming each and printing none', () => {
    for (const base of [production(), development()]) {
      const problems = problemsOf({ ...base, PROVIDER_API_KEY: undefined, PROVIDER_CALLBACK_SECRET: '', CREDENTIALS_ENCRYPTION_KEY: undefined, DATABASE_URL: undefined });
      expect(problems).toEqual([
        expect.stringContaining('DATABASE_URL'),
        expect.stringContaining('PROVIDER_API_KEY'),
        expect.stringContaining('PROVIDER_CALLBACK_SECRET'),
        expect.stringContaining('CREDENTIALS_ENCRYPTION_KEY'),
      ]);
    }
    expect(problemsOf({ ...development(), CREDENTIALS_ENCRYPTION_KEY: 'not-a-32-byte-key-SHOULD-NOT-LEAK' })).toEqual([expect.stringContaining('CREDENTIALS_ENCRYPTION_KEY')]);
  });

  it('refuses negative fees and a zero or negative idempotency TTL in every mode', () => {
    for (const base of [production(), development()]) {
      expect(problemsOf({ ...base, DEFAULT_PIX_FEE_BPS: '-1' })).toEqual([expect.stringContaining('DEFAULT_PIX_FEE_BPS')]);
      expect(problemsOf({ ...base, DEFAULT_PIX_FEE_FIXED_CENTS: '-5' })).toEqual([expect.stringContaining('DEFAULT_PIX_FEE_FIXED_CENTS')]);
      expect(problemsOf({ ...base, IDEMPOTENCY_TTL_HOURS: '0' })).toEqual([expect.stringContaining('IDEMPOTENCY_TTL_HOURS')]);
      expect(problemsOf({ ...base, IDEMPOTENCY_TTL_HOURS: '-3' })).toEqual([expect.stringContaining('IDEMPOTENCY_TTL_HOURS')]);
    }
    expect(problemsOf({ ...development(), DEFAULT_PIX_FEE_BPS: '10001' })).toEqual([expect.stringContaining('DEFAULT_PIX_FEE_BPS')]);
    expect(problemsOf({ ...development(), RATE_LIMIT_PER_MINUTE: '0' })).toEqual([expect.stringContaining('RATE_LIMIT_PER_MINUTE')]);
  });

  it('caps the checkout page\'s open status streams at 3 per checkout and 20 per IP unless set; refuses 0 or a non-number', () => {
    expect(loadConfig(development()).checkoutStreams).toEqual({ perCheckout: 3, perIp: 20 });
    expect(loadConfig({ ...production(), CHECKOUT_STREAMS_PER_CHECKOUT: '5', CHECKOUT_STREAMS_PER_IP: '200' }).checkoutStreams).toEqual({ perCheckout: 5, perIp: 200 });
    expect(problemsOf({ ...development(), CHECKOUT_STREAMS_PER_CHECKOUT: '0', CHECKOUT_STREAMS_PER_IP: 'many' })).toEqual([
      expect.stringContaining('CHECKOUT_STREAMS_PER_CHECKOUT'),
      expect.stringContaining('CHECKOUT_STREAMS_PER_IP'),
    ]);
  });

  it('lists every problem in one error', () => {
    const problems = problemsOf({
      ...production(),
      PUBLIC_BASE_URL: 'http://api.example.com',
      ALLOW_PRIVATE_WEBHOOK_DESTINATIONS: 'true',
      PROVIDER_API_KEY: undefined,
      DEFAULT_PIX_FEE_BPS: '-1',
      IDEMPOTENCY_TTL_HOURS: '0',
    });
    expect(problems).toHaveLength(5);
    let message = '';
    try {
      loadConfig({ ...production(), PROVIDER_API_KEY: undefined, IDEMPOTENCY_TTL_HOURS: '0' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/PROVIDER_API_KEY[\s\S]*IDEMPOTENCY_TTL_HOURS/);
  });

  describe('TRUST_PROXY', () => {
    it('is false unless set', () => {
      expect(loadConfig(development()).trustProxy).toBe(false);
      expect(loadConfig({ ...development(), TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    });

    it('takes a hop count', () => {
      expect(loadConfig({ ...production(), TRUST_PROXY: '1' }).trustProxy).toBe(1);
      expect(loadConfig({ ...production(), TRUST_PROXY: '2' }).trustProxy).toBe(2);
    });

    it('takes a list of addresses, CIDR ranges and proxy-addr names', () => {
      expect(loadConfig({ ...production(), TRUST_PROXY: '10.0.0.0/8, 192.168.1.10,fd00::/8, loopback' }).trustProxy).toEqual(['10.0.0.0/8', '192.168.1.10', 'fd00::/8', 'loopback']);
    });

    it.each([['true'], ['yes'], ['10.0.0.0/33'], ['300.1.1.1'], ['-1'], ['proxy.example.com']])('refuses %p', (value) => {
      expect(problemsOf({ ...production(), TRUST_PROXY: value })).toEqual([expect.stringContaining('TRUST_PROXY')]);
    });
  });

  it('shows the git SHA on /healthz only when EXPOSE_BUILD_INFO=true', () => {
    expect(loadConfig(development()).exposeBuildInfo).toBe(false);
    expect(loadConfig({ ...production(), EXPOSE_BUILD_INFO: 'true' }).exposeBuildInfo).toBe(true);
    expect(problemsOf({ ...production(), EXPOSE_BUILD_INFO: 'maybe' })).toEqual([expect.stringContaining('EXPOSE_BUILD_INFO')]);
  });

  describe('SMTP_URL and MAIL_FROM', () => {
    it('requires SMTP_URL in production only (login codes would never arrive)', () => {
      expect(problemsOf({ ...production(), SMTP_URL: undefined })).toEqual([expect.stringContaining('SMTP_URL is required')]);
      expect(loadConfig(development()).smtpUrl).toBeNull();
      expect(loadConfig({ ...development(), NODE_ENV: 'test' }).smtpUrl).toBeNull();
      expect(loadConfig(production()).smtpUrl).toBe(SECRETS.SMTP_URL);
    });

    it.each([['not a url'], ['http://smtp.example.com'], ['smtps//mailer:smtp-password-SHOULD-NOT-LEAK@x']])('refuses SMTP_URL=%p without printing it', (value) => {
      expect(problemsOf({ ...production(), SMTP_URL: value })).toEqual([expect.stringContaining('SMTP_URL')]);
    });

    it('defaults MAIL_FROM and refuses a multi-line one', () => {
      expect(loadConfig(development()).mailFrom).toBe('Pix Gateway <no-reply@localhost>');
      expect(loadConfig({ ...production(), MAIL_FROM: 'Loja <no-reply@loja.example>' }).mailFrom).toBe('Loja <no-reply@loja.example>');
      expect(problemsOf({ ...production(), MAIL_FROM: 'a@b.c\r\nBcc: x@y.z' })).toEqual([expect.stringContaining('MAIL_FROM')]);
    });
  });
});

describe('loadConfig: sign-in keys and cookies', () => {
  it('requires RECEIPT_SIGNING_KEY in production, refuses a short one, leaves it empty in development', () => {
    expect(problemsOf({ ...production(), RECEIPT_SIGNING_KEY: undefined })).toEqual([expect.stringContaining('RECEIPT_SIGNING_KEY')]);
    expect(problemsOf({ ...development(), RECEIPT_SIGNING_KEY: 'short-SHOULD-NOT-LEAK' })).toEqual([expect.stringContaining('at least 32')]);
    expect(loadConfig({ ...development(), RECEIPT_SIGNING_KEY: undefined }).receiptSigningKey).toBe('');
    expect(loadConfig(production()).receiptSigningKey).toBe(SECRETS.RECEIPT_SIGNING_KEY);
  });

  it('reads METRICS_TOKEN (optional everywhere, at least 32 characters), null when unset', () => {
    expect(loadConfig(production()).metricsToken).toBeNull();
    expect(loadConfig({ ...production(), METRICS_TOKEN: 'metrics-token-SHOULD-NOT-LEAK-0123456789' }).metricsToken).toBe('metrics-token-SHOULD-NOT-LEAK-0123456789');
    expect(problemsOf({ ...development(), METRICS_TOKEN: 'short-SHOULD-NOT-LEAK' })).toEqual([expect.stringContaining('METRICS_TOKEN must be at least 32')]);
  });

  it('requires JWT_SECRETS in production, refuses short keys, and lists them in order (the first signs)', () => {
    expect(loadConfig(production()).auth.jwtSecrets).toHaveLength(2);
    expect(problemsOf({ ...production(), JWT_SECRETS: undefined })).toEqual([expect.stringContaining('JWT_SECRETS')]);
    expect(problemsOf({ ...development(), JWT_SECRETS: 'short-SHOULD-NOT-LEAK' })).toEqual([expect.stringContaining('JWT_SECRETS')]);
    expect(loadConfig({ ...development(), JWT_SECRETS: undefined }).auth.jwtSecrets).toEqual([]);
  });

  it('sets Secure cookies in production and refuses turning them off there', () => {
    expect(loadConfig(production()).auth.secureCookies).toBe(true);
    expect(loadConfig(development()).auth.secureCookies).toBe(false);
    expect(problemsOf({ ...production(), SECURE_COOKIES: 'false' })).toEqual([expect.stringContaining('SECURE_COOKIES')]);
  });
});

describe('loadConfig: uploads (avatars)', () => {
  const s3 = { S3_ENDPOINT: 'https://s3.example.com', S3_BUCKET: 'avatars', S3_ACCESS_KEY_ID: 'AKIDEXAMPLE', S3_SECRET_ACCESS_KEY: 's3-secret-SHOULD-NOT-LEAK' };

  it('uses the local store under .data/uploads by default, with the given secret', () => {
    expect(loadConfig(production()).storage).toEqual({ uploadsDir: '.data/uploads', uploadSigningSecret: SECRETS.UPLOAD_SIGNING_SECRET, s3: null });
    expect(loadConfig({ ...production(), UPLOADS_DIR: '/srv/uploads' }).storage.uploadsDir).toBe('/srv/uploads');
  });

  it('requires UPLOAD_SIGNING_SECRET in production unless S3 is used, and refuses a short one', () => {
    expect(problemsOf({ ...production(), UPLOAD_SIGNING_SECRET: undefined })).toEqual([expect.stringContaining('UPLOAD_SIGNING_SECRET')]);
    expect(problemsOf({ ...production(), UPLOAD_SIGNING_SECRET: undefined, ...s3 })).toEqual([]);
    expect(problemsOf({ ...development(), UPLOAD_SIGNING_SECRET: 'short-SHOULD-NOT-LEAK' })).toEqual([expect.stringContaining('at least 32')]);
  });

  it('derives a stable secret in development and test from CREDENTIALS_ENCRYPTION_KEY, unlike that key', () => {
    const dev = { ...development(), UPLOAD_SIGNING_SECRET: undefined };
    const secret = loadConfig(dev).storage.uploadSigningSecret;
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(secret).not.toBe(SECRETS.CREDENTIALS_ENCRYPTION_KEY);
    expect(loadConfig({ ...dev, NODE_ENV: 'test' }).storage.uploadSigningSecret).toBe(secret);
  });

  it('uses S3 when S3_ENDPOINT is set: path-style defaults, and bucket and keys required', () => {
    expect(loadConfig({ ...production(), ...s3 }).storage.s3).toEqual({
      endpoint: 'https://s3.example.com',
      bucket: 'avatars',
      region: 'us-east-1',
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 's3-secret-SHOULD-NOT-LEAK',
      publicBaseUrl: undefined,
    });
    expect(problemsOf({ ...production(), S3_ENDPOINT: 'https://s3.example.com' })).toEqual([
      expect.stringContaining('S3_BUCKET'),
      expect.stringContaining('S3_ACCESS_KEY_ID'),
      expect.stringContaining('S3_SECRET_ACCESS_KEY'),
    ]);
    expect(problemsOf({ ...production(), ...s3, S3_ENDPOINT: 'http://s3.example.com' })).toEqual([expect.stringContaining('S3_ENDPOINT must use https')]);
  });
});
