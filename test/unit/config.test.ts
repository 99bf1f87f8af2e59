/**
 * loadConfig refuses a fail-open configuration: unknown environments, production URLs that
 * are unset, plain http or loopback, private webhook destinations in production, missing
 * secrets, negative fees, a zero idempotency TTL, an unsafe TRUST_PROXY. Every problem is
 * listed at once, and no secret value ever appears in the message.
 */
import fs from 'node:fs';
import path from 'node:path';
import { inspect } from 'node:util';
import { ConfigError, cliEnvironment, loadConfig, temporalConnectionForCli } from '../../config';
import { temporalConnectionOptions } from '../../core/temporal/connection';
import { runTool } from '../support/externalTools';
import { testCertificates, type PkiFiles } from '../support/testCertificates';

const SECRETS = {
  PROVIDER_API_KEY: 'prov-key-SHOULD-NOT-LEAK',
  PROVIDER_CALLBACK_SECRET: 'callback-secret-SHOULD-NOT-LEAK',
  CREDENTIALS_ENCRYPTION_KEY: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
  UPLOAD_SIGNING_SECRET: 'upload-signing-secret-SHOULD-NOT-LEAK-0123456789',
  SMTP_URL: 'smtps://mailer:smtp-password-SHOULD-NOT-LEAK@smtp.example.com:465',
  JWT_SECRETS: 'jwt-signing-key-SHOULD-NOT-LEAK-0123456789abcdef,jwt-old-key-SHOULD-NOT-LEAK-0123456789abcdef',
  RECEIPT_SIGNING_KEY: 'receipt-signing-key-SHOULD-NOT-LEAK-0123456789',
  PIX_API_CLIENT_SECRET: 'pix-client-secret-SHOULD-NOT-LEAK',
  PIX_WEBHOOK_SECRET: 'pix-webhook-path-secret-SHOULD-NOT-LEAK-0123456789',
};

/** Not in SECRETS (spread into every fixture): a passphrase without its PKCS#12 file is a problem of its own. */
const PFX_PASSPHRASE_WRONG = 'pfx-passphrase-SHOULD-NOT-LEAK';

// The client certificate files production requires are real: config.ts opens them.
let certs: PkiFiles;
beforeAll(async () => {
  certs = await testCertificates();
}, 30_000);

/** A real PSP's API Pix, with a PEM client certificate and the PSP's private CA. */
const pixApiProduction = (): NodeJS.ProcessEnv => ({
  PIX_API_BASE_URL: 'https://pix.psp.example.com/api/v2',
  PIX_API_TOKEN_URL: 'https://pix.psp.example.com/oauth/token',
  PIX_API_CLIENT_ID: 'Client_Id_gateway',
  PIX_API_CERT_FILE: certs.clientCertFile,
  PIX_API_KEY_FILE: certs.clientKeyFile,
  PIX_API_CA_FILE: certs.caFile,
  PIX_RECEIVING_KEY: '7d9f0335-8dcc-4054-9bf9-0dbd61d36906',
});

/** Every PIX_* variable unset: the bundled sandbox. */
const noPixApi = (): NodeJS.ProcessEnv =>
  Object.fromEntries(
    [
      'PIX_API_BASE_URL',
      'PIX_API_TOKEN_URL',
      'PIX_API_CLIENT_ID',
      'PIX_API_CLIENT_SECRET',
      'PIX_API_CERT_FILE',
      'PIX_API_KEY_FILE',
      'PIX_API_PFX_FILE',
      'PIX_API_PFX_PASSPHRASE',
      'PIX_API_CA_FILE',
      'PIX_RECEIVING_KEY',
      'PIX_WEBHOOK_SECRET',
    ].map((name) => [name, undefined]),
  );

/** The Temporal frontend's mutual TLS: the client certificate and the CA of the (test) PKI. */
const temporalTls = (): NodeJS.ProcessEnv => ({
  TEMPORAL_ADDRESS: 'temporal.internal:7233',
  TEMPORAL_TLS_CERT: certs.clientCertFile,
  TEMPORAL_TLS_KEY: certs.clientKeyFile,
  TEMPORAL_TLS_CA: certs.caFile,
});

const production = (): NodeJS.ProcessEnv => ({
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://gateway:db-password-SHOULD-NOT-LEAK@db.internal:5432/gateway',
  PROVIDER_BASE_URL: 'https://psp.example.com',
  PUBLIC_BASE_URL: 'https://api.gateway.example.com',
  ...pixApiProduction(),
  ...temporalTls(),
  ...SECRETS,
});

/** The dev server of `npm start`: plain TCP, no TEMPORAL_TLS_*. */
const development = (): NodeJS.ProcessEnv => ({
  ...production(),
  NODE_ENV: 'development',
  PROVIDER_BASE_URL: undefined,
  PUBLIC_BASE_URL: undefined,
  SMTP_URL: undefined,
  TEMPORAL_ADDRESS: undefined,
  TEMPORAL_TLS_CERT: undefined,
  TEMPORAL_TLS_KEY: undefined,
  TEMPORAL_TLS_CA: undefined,
  ...noPixApi(),
});

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as Error).message;
    for (const secret of [
      ...Object.values(SECRETS),
      'db-password-SHOULD-NOT-LEAK',
      'smtp-password-SHOULD-NOT-LEAK',
      'not-a-32-byte-key-SHOULD-NOT-LEAK',
      PFX_PASSPHRASE_WRONG,
    ])
      expect(message).not.toContain(secret);
    // A boolean: a failing toContain would print the run's real test passphrase.
    expect(message.includes(certs.pfxPassphrase)).toBe(false);
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

  it('takes WEBHOOK_PRIVATE_RECEIVERS in production, each an exact ip:port and the merchants who may use it', () => {
    const shop = '3f1c0d2e-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
    const partner = 'a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d';
    expect(loadConfig(production()).webhookPrivateReceivers).toEqual([]);
    expect(
      loadConfig({
        ...production(),
        WEBHOOK_PRIVATE_RECEIVERS: `10.1.2.3:8443=${shop}|${partner}, [FD12::1]:443=${shop}`,
      }).webhookPrivateReceivers,
    ).toEqual([
      { receiver: '10.1.2.3:8443', merchantIds: [shop, partner] },
      { receiver: '[fd12::1]:443', merchantIds: [shop] },
    ]);
    for (const [entry, problem] of [
      ['10.1.2.3:8443', 'names no merchant'],
      [`127.0.0.1:80=${shop}`, 'loopback'],
      [`[::1]:443=${shop}`, 'loopback'],
      [`0.0.0.0:80=${shop}`, 'unspecified'],
      [`169.254.169.254:80=${shop}`, 'link-local'],
      [`[::7f00:1]:8080=${shop}`, 'embeds an IPv4 address'],
      [`10.1.2.3=${shop}`, 'ip:port=merchantId'],
      [`receiver.internal:443=${shop}`, 'ip:port=merchantId'],
      [`10.1.2.3:0=${shop}`, 'ip:port=merchantId'],
    ])
      expect(problemsOf({ ...production(), WEBHOOK_PRIVATE_RECEIVERS: entry })).toEqual([
        expect.stringMatching(
          new RegExp(`^WEBHOOK_PRIVATE_RECEIVERS: "${entry.replace(/[[\]().|]/g, '\\$&')}" .*${problem}`),
        ),
      ]);
  });

  it('accepts development and test with local defaults', () => {
    expect(loadConfig(development()).provider.baseUrl).toBe('http://127.0.0.1:4010');
    expect(loadConfig({ ...development(), NODE_ENV: 'test' }).env).toBe('test');
  });

  it.each([[undefined], [''], ['staging'], ['prod'], ['Production']])(
    'refuses NODE_ENV=%p: only development, test or production',
    (value) => {
      expect(problemsOf({ ...production(), NODE_ENV: value })).toEqual([expect.stringContaining('NODE_ENV')]);
    },
  );

  it.each([
    ['unset', undefined],
    ['plain http', 'http://psp.example.com'],
    ['loopback IPv4', 'https://127.0.0.1:4010'],
    ['loopback name', 'https://localhost:4010'],
    ['loopback IPv6', 'https://[::1]:4010'],
    ['not a URL', 'psp.example.com'],
  ])('refuses, in production, a provider and public base URL that is %s', (_what, url) => {
    const problems = problemsOf({ ...production(), PROVIDER_BASE_URL: url, PUBLIC_BASE_URL: url });
    expect(problems).toEqual([
      expect.stringContaining('PROVIDER_BASE_URL'),
      expect.stringContaining('PUBLIC_BASE_URL'),
    ]);
  });

  it('refuses private webhook destinations in production', () => {
    expect(problemsOf({ ...production(), ALLOW_PRIVATE_WEBHOOK_DESTINATIONS: 'true' })).toEqual([
      expect.stringContaining('ALLOW_PRIVATE_WEBHOOK_DESTINATIONS'),
    ]);
  });

  it('refuses missing or malformed secrets in every mode, naming each and printing none', () => {
    for (const base of [production(), development()]) {
      const problems = problemsOf({
        ...base,
        PROVIDER_API_KEY: undefined,
        PROVIDER_CALLBACK_SECRET: '',
        CREDENTIALS_ENCRYPTION_KEY: undefined,
        DATABASE_URL: undefined,
      });
      expect(problems).toEqual([
        expect.stringContaining('DATABASE_URL'),
        expect.stringContaining('PROVIDER_API_KEY'),
        expect.stringContaining('PROVIDER_CALLBACK_SECRET'),
        expect.stringContaining('CREDENTIALS_ENCRYPTION_KEY'),
      ]);
    }
    expect(problemsOf({ ...development(), CREDENTIALS_ENCRYPTION_KEY: 'not-a-32-byte-key-SHOULD-NOT-LEAK' })).toEqual([
      expect.stringContaining('CREDENTIALS_ENCRYPTION_KEY'),
    ]);
  });

  it('refuses negative fees and a zero or negative idempotency TTL in every mode', () => {
    for (const base of [production(), development()]) {
      expect(problemsOf({ ...base, DEFAULT_PIX_FEE_BPS: '-1' })).toEqual([
        expect.stringContaining('DEFAULT_PIX_FEE_BPS'),
      ]);
      expect(problemsOf({ ...base, DEFAULT_PIX_FEE_FIXED_CENTS: '-5' })).toEqual([
        expect.stringContaining('DEFAULT_PIX_FEE_FIXED_CENTS'),
      ]);
      expect(problemsOf({ ...base, IDEMPOTENCY_TTL_HOURS: '0' })).toEqual([
        expect.stringContaining('IDEMPOTENCY_TTL_HOURS'),
      ]);
      expect(problemsOf({ ...base, IDEMPOTENCY_TTL_HOURS: '-3' })).toEqual([
        expect.stringContaining('IDEMPOTENCY_TTL_HOURS'),
      ]);
    }
    expect(problemsOf({ ...development(), DEFAULT_PIX_FEE_BPS: '10001' })).toEqual([
      expect.stringContaining('DEFAULT_PIX_FEE_BPS'),
    ]);
    expect(problemsOf({ ...development(), RATE_LIMIT_PER_MINUTE: '0' })).toEqual([
      expect.stringContaining('RATE_LIMIT_PER_MINUTE'),
    ]);
  });

  it("caps the checkout page's open status streams at 3 per checkout and 20 per IP unless set; refuses 0 or a non-number", () => {
    expect(loadConfig(development()).checkoutStreams).toEqual({ perCheckout: 3, perIp: 20 });
    expect(
      loadConfig({ ...production(), CHECKOUT_STREAMS_PER_CHECKOUT: '5', CHECKOUT_STREAMS_PER_IP: '200' })
        .checkoutStreams,
    ).toEqual({ perCheckout: 5, perIp: 200 });
    expect(
      problemsOf({ ...development(), CHECKOUT_STREAMS_PER_CHECKOUT: '0', CHECKOUT_STREAMS_PER_IP: 'many' }),
    ).toEqual([
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
      expect(
        loadConfig({ ...production(), TRUST_PROXY: '10.0.0.0/8, 192.168.1.10,fd00::/8, loopback' }).trustProxy,
      ).toEqual(['10.0.0.0/8', '192.168.1.10', 'fd00::/8', 'loopback']);
    });

    it.each([['true'], ['yes'], ['10.0.0.0/33'], ['300.1.1.1'], ['-1'], ['proxy.example.com']])(
      'refuses %p',
      (value) => {
        expect(problemsOf({ ...production(), TRUST_PROXY: value })).toEqual([expect.stringContaining('TRUST_PROXY')]);
      },
    );
  });

  it('shows the git SHA on /healthz only when EXPOSE_BUILD_INFO=true', () => {
    expect(loadConfig(development()).exposeBuildInfo).toBe(false);
    expect(loadConfig({ ...production(), EXPOSE_BUILD_INFO: 'true' }).exposeBuildInfo).toBe(true);
    expect(problemsOf({ ...production(), EXPOSE_BUILD_INFO: 'maybe' })).toEqual([
      expect.stringContaining('EXPOSE_BUILD_INFO'),
    ]);
  });

  it('reads the build identity (GIT_SHA, BUILD_ID, BUILT_AT), null when unset', () => {
    expect(loadConfig(production()).build).toEqual({ gitSha: null, buildId: null, builtAt: null });
    expect(
      loadConfig({ ...production(), GIT_SHA: 'abc123', BUILD_ID: 'ci-42', BUILT_AT: '2026-11-25T10:00:00Z' }).build,
    ).toEqual({ gitSha: 'abc123', buildId: 'ci-42', builtAt: '2026-11-25T10:00:00Z' });
  });

  describe('LOG_LEVEL and GATEWAY_TEST_LOG_DIR', () => {
    it('logs at info unless told; under tests at debug into the run directory, else silent', () => {
      expect(loadConfig(production()).log).toEqual({ level: 'info', testLogDir: null });
      expect(loadConfig({ ...production(), LOG_LEVEL: 'warn' }).log.level).toBe('warn');
      const test = { ...development(), NODE_ENV: 'test' };
      expect(loadConfig(test).log).toEqual({ level: 'silent', testLogDir: null });
      expect(loadConfig({ ...test, GATEWAY_TEST_LOG_DIR: '/tmp/run' }).log).toEqual({
        level: 'debug',
        testLogDir: '/tmp/run',
      });
    });

    it('reads GATEWAY_TEST_LOG_DIR under NODE_ENV=test only, so production never logs into a file', () => {
      expect(loadConfig({ ...production(), GATEWAY_TEST_LOG_DIR: '/tmp/run' }).log.testLogDir).toBeNull();
    });

    it('refuses a level pino does not know', () => {
      expect(problemsOf({ ...production(), LOG_LEVEL: 'verbose' })).toEqual([expect.stringContaining('LOG_LEVEL')]);
    });
  });

  describe('PASSWORD_HASHING', () => {
    it('hashes at the OWASP cost unless a test run asks for the test cost', () => {
      expect(loadConfig(production()).auth.passwordHashing).toBe('owasp');
      expect(loadConfig(development()).auth.passwordHashing).toBe('owasp');
      const test = { ...development(), NODE_ENV: 'test' };
      expect(loadConfig(test).auth.passwordHashing).toBe('owasp');
      expect(loadConfig({ ...test, PASSWORD_HASHING: 'test' }).auth.passwordHashing).toBe('test');
    });

    it('reads it under NODE_ENV=test only, so production and development never hash cheaply', () => {
      expect(loadConfig({ ...production(), PASSWORD_HASHING: 'test' }).auth.passwordHashing).toBe('owasp');
      expect(loadConfig({ ...development(), PASSWORD_HASHING: 'test' }).auth.passwordHashing).toBe('owasp');
    });

    it('refuses a hashing it does not know', () => {
      expect(problemsOf({ ...development(), NODE_ENV: 'test', PASSWORD_HASHING: 'md5' })).toEqual([
        expect.stringContaining('PASSWORD_HASHING'),
      ]);
    });
  });

  it('names the platform institution from PLATFORM_INSTITUTION_NAME, with a default', () => {
    expect(loadConfig(production()).platformInstitutionName).toBe('Gateway Pagamentos IP');
    expect(loadConfig({ ...production(), PLATFORM_INSTITUTION_NAME: 'Outra IP' }).platformInstitutionName).toBe(
      'Outra IP',
    );
  });

  it('sizes the receipt render pool from RECEIPT_RENDER_THREADS (1 to 32), else leaves it to the cores', () => {
    expect(loadConfig(production()).receiptRenderThreads).toBeNull();
    expect(loadConfig({ ...production(), RECEIPT_RENDER_THREADS: '3' }).receiptRenderThreads).toBe(3);
    for (const value of ['0', '33', 'two'])
      expect(problemsOf({ ...production(), RECEIPT_RENDER_THREADS: value })).toEqual([
        expect.stringContaining('RECEIPT_RENDER_THREADS'),
      ]);
  });

  it('hands SANDBOX_CONTROL_TOKEN to the payment simulator outside production only', () => {
    const token = 'ctl_token_0123456789abcdef0123456789';
    expect(loadConfig({ ...development(), SANDBOX_CONTROL_TOKEN: token }).sandboxControlToken).toBe(token);
    expect(loadConfig({ ...production(), SANDBOX_CONTROL_TOKEN: token }).sandboxControlToken).toBeNull();
  });

  it("the CLI reads the environment over the local stack's, and names a missing variable (never a value)", () => {
    const cli = cliEnvironment(
      { DATABASE_URL: 'postgres://local', MAIL_DIR: '/local/mail' },
      { MAIL_DIR: '/env/mail' },
    );
    expect(cli.required('DATABASE_URL')).toBe('postgres://local');
    expect(cli.optional('MAIL_DIR')).toBe('/env/mail');
    expect(cli.optional('SANDBOX_BASE_URL')).toBeUndefined();
    expect(() => cli.required('PROVIDER_API_KEY')).toThrow(/PROVIDER_API_KEY is not set/);
    expect(cli.log).toEqual({ level: 'info', testLogDir: null });
    expect(() => cliEnvironment({}, { LOG_LEVEL: 'loud' })).toThrow(ConfigError);
  });

  describe('SMTP_URL and MAIL_FROM', () => {
    it('requires SMTP_URL in production only (login codes would never arrive)', () => {
      expect(problemsOf({ ...production(), SMTP_URL: undefined })).toEqual([
        expect.stringContaining('SMTP_URL is required'),
      ]);
      expect(loadConfig(development()).smtpUrl).toBeNull();
      expect(loadConfig({ ...development(), NODE_ENV: 'test' }).smtpUrl).toBeNull();
      expect(loadConfig(production()).smtpUrl).toBe(SECRETS.SMTP_URL);
    });

    it.each([['not a url'], ['http://smtp.example.com'], ['smtps//mailer:smtp-password-SHOULD-NOT-LEAK@x']])(
      'refuses SMTP_URL=%p without printing it',
      (value) => {
        expect(problemsOf({ ...production(), SMTP_URL: value })).toEqual([expect.stringContaining('SMTP_URL')]);
      },
    );

    it('defaults MAIL_FROM and refuses a multi-line one', () => {
      expect(loadConfig(development()).mailFrom).toBe('Pix Gateway <no-reply@localhost>');
      expect(loadConfig({ ...production(), MAIL_FROM: 'Loja <no-reply@loja.example>' }).mailFrom).toBe(
        'Loja <no-reply@loja.example>',
      );
      expect(problemsOf({ ...production(), MAIL_FROM: 'a@b.c\r\nBcc: x@y.z' })).toEqual([
        expect.stringContaining('MAIL_FROM'),
      ]);
    });
  });
});

describe('loadConfig: sign-in keys and cookies', () => {
  it('requires RECEIPT_SIGNING_KEY in production, refuses a short one, leaves it empty in development', () => {
    expect(problemsOf({ ...production(), RECEIPT_SIGNING_KEY: undefined })).toEqual([
      expect.stringContaining('RECEIPT_SIGNING_KEY'),
    ]);
    expect(problemsOf({ ...development(), RECEIPT_SIGNING_KEY: 'short-SHOULD-NOT-LEAK' })).toEqual([
      expect.stringContaining('at least 32'),
    ]);
    expect(loadConfig({ ...development(), RECEIPT_SIGNING_KEY: undefined }).receiptSigningKey).toBe('');
    expect(loadConfig(production()).receiptSigningKey).toBe(SECRETS.RECEIPT_SIGNING_KEY);
  });

  it('reads METRICS_TOKEN (optional everywhere, at least 32 characters), null when unset', () => {
    expect(loadConfig(production()).metricsToken).toBeNull();
    expect(
      loadConfig({ ...production(), METRICS_TOKEN: 'metrics-token-SHOULD-NOT-LEAK-0123456789' }).metricsToken,
    ).toBe('metrics-token-SHOULD-NOT-LEAK-0123456789');
    expect(problemsOf({ ...development(), METRICS_TOKEN: 'short-SHOULD-NOT-LEAK' })).toEqual([
      expect.stringContaining('METRICS_TOKEN must be at least 32'),
    ]);
  });

  it('requires JWT_SECRETS in production, refuses short keys, and lists them in order (the first signs)', () => {
    expect(loadConfig(production()).auth.jwtSecrets).toHaveLength(2);
    expect(problemsOf({ ...production(), JWT_SECRETS: undefined })).toEqual([expect.stringContaining('JWT_SECRETS')]);
    expect(problemsOf({ ...development(), JWT_SECRETS: 'short-SHOULD-NOT-LEAK' })).toEqual([
      expect.stringContaining('JWT_SECRETS'),
    ]);
    expect(loadConfig({ ...development(), JWT_SECRETS: undefined }).auth.jwtSecrets).toEqual([]);
  });

  it('sets Secure cookies in production and refuses turning them off there', () => {
    expect(loadConfig(production()).auth.secureCookies).toBe(true);
    expect(loadConfig(development()).auth.secureCookies).toBe(false);
    expect(problemsOf({ ...production(), SECURE_COOKIES: 'false' })).toEqual([
      expect.stringContaining('SECURE_COOKIES'),
    ]);
  });
});

describe('loadConfig: uploads (avatars)', () => {
  const s3 = {
    S3_ENDPOINT: 'https://s3.example.com',
    S3_BUCKET: 'avatars',
    S3_ACCESS_KEY_ID: 'AKIDEXAMPLE',
    S3_SECRET_ACCESS_KEY: 's3-secret-SHOULD-NOT-LEAK',
  };

  it('uses the local store under .data/uploads by default, with the given secret', () => {
    expect(loadConfig(production()).storage).toEqual({
      uploadsDir: '.data/uploads',
      uploadSigningSecret: SECRETS.UPLOAD_SIGNING_SECRET,
      s3: null,
    });
    expect(loadConfig({ ...production(), UPLOADS_DIR: '/srv/uploads' }).storage.uploadsDir).toBe('/srv/uploads');
  });

  it('requires UPLOAD_SIGNING_SECRET in production unless S3 is used, and refuses a short one', () => {
    expect(problemsOf({ ...production(), UPLOAD_SIGNING_SECRET: undefined })).toEqual([
      expect.stringContaining('UPLOAD_SIGNING_SECRET'),
    ]);
    expect(problemsOf({ ...production(), UPLOAD_SIGNING_SECRET: undefined, ...s3 })).toEqual([]);
    expect(problemsOf({ ...development(), UPLOAD_SIGNING_SECRET: 'short-SHOULD-NOT-LEAK' })).toEqual([
      expect.stringContaining('at least 32'),
    ]);
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
    expect(problemsOf({ ...production(), ...s3, S3_ENDPOINT: 'http://s3.example.com' })).toEqual([
      expect.stringContaining('S3_ENDPOINT must use https'),
    ]);
  });
});

describe('loadConfig: API Pix (PIX_API_*, PIX_RECEIVING_KEY, PIX_WEBHOOK_SECRET)', () => {
  const tmpFile = (name: string, content: string): string => {
    const file = path.join(certs.dir, name);
    fs.writeFileSync(file, content);
    return file;
  };

  it('accepts a real PSP in production: https, a PEM client certificate, the private CA, the secrets', () => {
    const { pixApi } = loadConfig(production());
    expect(pixApi).toMatchObject({
      baseUrl: 'https://pix.psp.example.com/api/v2',
      tokenUrl: 'https://pix.psp.example.com/oauth/token',
      clientId: 'Client_Id_gateway',
      clientSecret: SECRETS.PIX_API_CLIENT_SECRET,
      receivingKey: '7d9f0335-8dcc-4054-9bf9-0dbd61d36906',
      webhookSecret: SECRETS.PIX_WEBHOOK_SECRET,
      allowPlainHttp: false,
      sandbox: false,
    });
    expect(pixApi.tls?.identity?.kind).toBe('pem');
    expect(pixApi.tls?.ca).not.toBeNull();
  });

  it('accepts a PKCS#12 file with its passphrase instead of the PEM pair', () => {
    const { pixApi } = loadConfig({
      ...production(),
      PIX_API_CERT_FILE: undefined,
      PIX_API_KEY_FILE: undefined,
      PIX_API_PFX_FILE: certs.clientPfxFile,
      PIX_API_PFX_PASSPHRASE: certs.pfxPassphrase,
    });
    expect(pixApi.tls?.identity?.kind).toBe('pfx');
  });

  it("accepts Efí's .p12 as issued, without a passphrase: PIX_API_PFX_PASSPHRASE set to empty", async () => {
    const file = path.join(path.dirname(certs.clientPfxFile), 'no-passphrase.p12');
    await runTool('openssl', [
      'pkcs12',
      '-export',
      '-inkey',
      certs.clientKeyFile,
      '-in',
      certs.clientCertFile,
      '-out',
      file,
      '-passout',
      'pass:',
    ]);
    const noPassphrase = {
      ...production(),
      PIX_API_CERT_FILE: undefined,
      PIX_API_KEY_FILE: undefined,
      PIX_API_PFX_FILE: file,
    };
    expect(loadConfig({ ...noPassphrase, PIX_API_PFX_PASSPHRASE: '' }).pixApi.tls?.identity?.kind).toBe('pfx');
    // Unset is still a missing half of the pair; a passphrase it was not made with still refuses.
    expect(problemsOf({ ...noPassphrase, PIX_API_PFX_PASSPHRASE: undefined })).toEqual(
      expect.arrayContaining([expect.stringContaining('PIX_API_PFX_PASSPHRASE is required')]),
    );
    expect(problemsOf({ ...noPassphrase, PIX_API_PFX_PASSPHRASE: 'wrong' })).toEqual(
      expect.arrayContaining([expect.stringContaining('cannot be opened')]),
    );
  });

  it('keeps certificate material and passphrase out of a serialised or printed configuration', () => {
    const keyPem = fs.readFileSync(certs.clientKeyFile, 'utf8').split('\n')[1];
    const pfxBase64 = fs.readFileSync(certs.clientPfxFile).toString('base64').slice(0, 40);
    const pem = loadConfig(production());
    const pfx = loadConfig({
      ...production(),
      PIX_API_CERT_FILE: undefined,
      PIX_API_KEY_FILE: undefined,
      PIX_API_PFX_FILE: certs.clientPfxFile,
      PIX_API_PFX_PASSPHRASE: certs.pfxPassphrase,
    });
    for (const [kind, config] of [
      ['pem', pem],
      ['pfx', pfx],
    ] as const) {
      for (const text of [JSON.stringify(config), inspect(config, { depth: 10 })]) {
        expect([certs.pfxPassphrase, keyPem, pfxBase64].some((secret) => text.includes(secret))).toBe(false);
        expect(text).toContain(kind);
      }
    }
  });

  it('uses the bundled sandbox over API Pix when nothing is set (development and test)', () => {
    for (const NODE_ENV of ['development', 'test']) {
      const { pixApi } = loadConfig({ ...development(), NODE_ENV, PROVIDER_BASE_URL: 'http://sandbox:4010/' });
      expect(pixApi).toMatchObject({
        baseUrl: 'http://sandbox:4010/api/v2',
        tokenUrl: 'http://sandbox:4010/oauth/token',
        clientId: 'pix-sandbox-client',
        receivingKey: '11222333000181',
        tls: null,
        allowPlainHttp: true,
        sandbox: true,
      });
      expect(pixApi.clientSecret.length).toBeGreaterThan(0);
      // Derived from the encryption key: stable across restarts, so the registered URL stays valid.
      expect(pixApi.webhookSecret).toMatch(/^[0-9a-f]{64}$/);
      expect(loadConfig({ ...development(), NODE_ENV }).pixApi.webhookSecret).toBe(pixApi.webhookSecret);
    }
    expect(
      loadConfig({ ...development(), SANDBOX_PIX_CLIENT_ID: 'other', SANDBOX_PIX_CLIENT_SECRET: 'other-secret' })
        .pixApi,
    ).toMatchObject({ clientId: 'other', clientSecret: 'other-secret' });
  });

  it('turns mutual TLS on for the sandbox when certificate files are given', () => {
    const { pixApi } = loadConfig({
      ...development(),
      PROVIDER_BASE_URL: 'https://127.0.0.1:4443',
      PIX_API_CERT_FILE: certs.clientCertFile,
      PIX_API_KEY_FILE: certs.clientKeyFile,
      PIX_API_CA_FILE: certs.caFile,
    });
    expect(pixApi).toMatchObject({ baseUrl: 'https://127.0.0.1:4443/api/v2', sandbox: true });
    expect(pixApi.tls?.identity?.kind).toBe('pem');
  });

  it('refuses to start in production without any of it, naming every missing piece', () => {
    expect(problemsOf({ ...production(), ...noPixApi() })).toEqual([
      expect.stringContaining('PIX_API_BASE_URL is required in production'),
      expect.stringContaining('PIX_API_TOKEN_URL is required in production'),
      expect.stringContaining('PIX_API_CLIENT_ID is required'),
      expect.stringContaining('PIX_API_CLIENT_SECRET is required'),
      expect.stringContaining('PIX_RECEIVING_KEY is required'),
      expect.stringContaining('a client certificate is required in production'),
      expect.stringContaining('PIX_WEBHOOK_SECRET is required in production'),
    ]);
  });

  it.each([
    ['plain http', 'http://pix.psp.example.com/api/v2'],
    ['loopback', 'https://127.0.0.1:8443/api/v2'],
    ['not a URL', 'pix.psp.example.com/api/v2'],
  ])('refuses, in production, API Pix URLs that are %s', (_what, url) => {
    expect(problemsOf({ ...production(), PIX_API_BASE_URL: url, PIX_API_TOKEN_URL: url })).toEqual([
      expect.stringContaining('PIX_API_BASE_URL'),
      expect.stringContaining('PIX_API_TOKEN_URL'),
    ]);
  });

  it('with PIX_API_BASE_URL outside production, requires the rest of a real PSP, and http on loopback only', () => {
    expect(problemsOf({ ...development(), PIX_API_BASE_URL: 'https://pix-h.psp.example.com/api/v2' })).toEqual([
      expect.stringContaining('PIX_API_TOKEN_URL is required with PIX_API_BASE_URL'),
      expect.stringContaining('PIX_API_CLIENT_ID is required with PIX_API_BASE_URL'),
      expect.stringContaining('PIX_API_CLIENT_SECRET is required with PIX_API_BASE_URL'),
      expect.stringContaining('PIX_RECEIVING_KEY is required with PIX_API_BASE_URL'),
    ]);
    const simulator = {
      ...development(),
      PIX_API_BASE_URL: 'http://127.0.0.1:9000/api/v2',
      PIX_API_TOKEN_URL: 'http://localhost:9000/oauth/token',
      PIX_API_CLIENT_ID: 'id',
      PIX_API_CLIENT_SECRET: 'secret',
      PIX_RECEIVING_KEY: 'chave@example.com',
    };
    expect(loadConfig(simulator).pixApi).toMatchObject({
      sandbox: false,
      tls: null,
      allowPlainHttp: true,
      clientId: 'id',
    });
    expect(problemsOf({ ...simulator, PIX_API_BASE_URL: 'http://pix-h.psp.example.com/api/v2' })).toEqual([
      expect.stringContaining('PIX_API_BASE_URL must use https (http only on loopback'),
    ]);
  });

  it.each<[string, NodeJS.ProcessEnv, string[]]>([
    [
      'a certificate and a PKCS#12 both',
      { PIX_API_PFX_FILE: 'x.p12', PIX_API_PFX_PASSPHRASE: PFX_PASSPHRASE_WRONG },
      ['either PIX_API_CERT_FILE + PIX_API_KEY_FILE or PIX_API_PFX_FILE + PIX_API_PFX_PASSPHRASE, not both'],
    ],
    [
      'a certificate without its key',
      { PIX_API_KEY_FILE: undefined },
      ['PIX_API_KEY_FILE is required with PIX_API_CERT_FILE'],
    ],
    [
      'a key without its certificate',
      { PIX_API_CERT_FILE: undefined },
      ['PIX_API_CERT_FILE is required with PIX_API_KEY_FILE'],
    ],
    [
      'a PKCS#12 without its passphrase',
      { PIX_API_CERT_FILE: undefined, PIX_API_KEY_FILE: undefined, PIX_API_PFX_FILE: 'x.p12' },
      ['PIX_API_PFX_PASSPHRASE is required with PIX_API_PFX_FILE'],
    ],
    [
      'a passphrase without its PKCS#12',
      { PIX_API_CERT_FILE: undefined, PIX_API_KEY_FILE: undefined, PIX_API_PFX_PASSPHRASE: PFX_PASSPHRASE_WRONG },
      ['PIX_API_PFX_FILE is required with PIX_API_PFX_PASSPHRASE'],
    ],
  ])('refuses %s, in every mode', (_what, change, expected) => {
    for (const base of [production(), { ...development(), ...pixApiProduction(), PIX_API_CLIENT_SECRET: 'secret' }]) {
      expect(problemsOf({ ...base, ...change })).toEqual(expected.map((p) => expect.stringContaining(p)));
    }
  });

  it('reports a file it cannot read as a configuration problem, by variable and error code, without its path', () => {
    const missing = path.join(certs.dir, 'no-such-file-SHOULD-NOT-LEAK.pem');
    const problems = problemsOf({ ...production(), PIX_API_CERT_FILE: missing, PIX_API_CA_FILE: certs.dir });
    expect(problems).toEqual([
      expect.stringMatching(/^PIX_API_CA_FILE could not be read \(EISDIR\)$/),
      expect.stringMatching(/^PIX_API_CERT_FILE could not be read \(ENOENT\)$/),
    ]);
    expect(problems.join('\n')).not.toContain('no-such-file');
  });

  it('refuses files that do not make a usable client certificate: a wrong passphrase, a key of another certificate, a CA that is no certificate', () => {
    const pfx = {
      ...production(),
      PIX_API_CERT_FILE: undefined,
      PIX_API_KEY_FILE: undefined,
      PIX_API_PFX_FILE: certs.clientPfxFile,
      PIX_API_PFX_PASSPHRASE: PFX_PASSPHRASE_WRONG,
    };
    expect(problemsOf(pfx)).toEqual([
      expect.stringContaining('PIX_API_PFX_FILE cannot be opened with PIX_API_PFX_PASSPHRASE'),
    ]);
    expect(problemsOf({ ...production(), PIX_API_KEY_FILE: certs.serverKeyFile })).toEqual([
      expect.stringContaining('PIX_API_CERT_FILE and PIX_API_KEY_FILE are not a PEM certificate and its private key'),
    ]);
    expect(problemsOf({ ...production(), PIX_API_CERT_FILE: tmpFile('garbage.pem', 'not a certificate') })).toEqual([
      expect.stringContaining('PIX_API_CERT_FILE and PIX_API_KEY_FILE'),
    ]);
    expect(
      problemsOf({ ...production(), PIX_API_CA_FILE: tmpFile('garbage-ca.pem', 'not a certificate either') }),
    ).toEqual([expect.stringContaining('PIX_API_CA_FILE is not a PEM certificate bundle')]);
  });

  it.each([
    ['shorter than 32 characters', 'short-SHOULD-NOT-LEAK'],
    ['not a URL path segment', 'pix/webhook?secret=SHOULD-NOT-LEAK-0123456789abcdef'],
  ])('refuses a PIX_WEBHOOK_SECRET %s, in every mode', (_what, value) => {
    for (const base of [production(), development()]) {
      expect(problemsOf({ ...base, PIX_WEBHOOK_SECRET: value })).toEqual([
        expect.stringContaining('PIX_WEBHOOK_SECRET must be at least 32 characters'),
      ]);
    }
  });

  it('refuses a receiving key longer than a Pix key can be', () => {
    expect(problemsOf({ ...production(), PIX_RECEIVING_KEY: 'k'.repeat(78) })).toEqual([
      expect.stringContaining('PIX_RECEIVING_KEY'),
    ]);
  });
});

describe('loadConfig: Temporal (TEMPORAL_ADDRESS, TEMPORAL_TLS_*)', () => {
  it('reads the client certificate and CA the mutual TLS of the frontend asks for, and hands them to the SDK', () => {
    const config = loadConfig(production());
    expect(config.temporal).toMatchObject({ address: 'temporal.internal:7233', serverName: null });
    expect(config.temporal.tls?.toJSON()).toEqual({ identity: 'pem', ca: true });
    const options = temporalConnectionOptions(config.temporal);
    expect(options.address).toBe('temporal.internal:7233');
    expect(options.tls?.serverNameOverride).toBeUndefined();
    expect(Buffer.from(options.tls?.serverRootCACertificate ?? []).toString()).toBe(
      fs.readFileSync(certs.caFile, 'utf8'),
    );
    expect(Buffer.from(options.tls?.clientCertPair?.crt ?? []).toString()).toBe(
      fs.readFileSync(certs.clientCertFile, 'utf8'),
    );
    expect(Buffer.from(options.tls?.clientCertPair?.key ?? []).toString()).toBe(
      fs.readFileSync(certs.clientKeyFile, 'utf8'),
    );
    // A logged config shows that there is a key, never the key.
    expect(inspect(config, { depth: 10 })).not.toContain('PRIVATE KEY');
    expect(JSON.stringify(config)).not.toContain('PRIVATE KEY');
  });

  it('takes TEMPORAL_TLS_SERVER_NAME as the name the certificate of the frontend is checked against', () => {
    const config = loadConfig({ ...production(), TEMPORAL_TLS_SERVER_NAME: 'temporal.example.com' });
    expect(config.temporal.serverName).toBe('temporal.example.com');
    expect(temporalConnectionOptions(config.temporal).tls?.serverNameOverride).toBe('temporal.example.com');
  });

  it('refuses production without the client certificate: the frontend would refuse the process', () => {
    for (const missing of [
      { TEMPORAL_TLS_CERT: undefined, TEMPORAL_TLS_KEY: undefined },
      { TEMPORAL_TLS_CERT: undefined, TEMPORAL_TLS_KEY: undefined, TEMPORAL_TLS_CA: undefined },
    ])
      expect(problemsOf({ ...production(), ...missing })).toEqual([
        expect.stringMatching(/^TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY are required in production/),
      ]);
  });

  it('outside production, no TEMPORAL_TLS_* is plain TCP (the dev server); the certificate turns TLS on', () => {
    const dev = loadConfig(development());
    expect(dev.temporal).toMatchObject({ address: '127.0.0.1:7233', tls: null, serverName: null });
    expect(temporalConnectionOptions(dev.temporal)).toEqual({ address: '127.0.0.1:7233' });
    const withTls = loadConfig({ ...development(), ...temporalTls() });
    expect(temporalConnectionOptions(withTls.temporal).tls?.clientCertPair).toBeDefined();
  });

  it.each<[string, NodeJS.ProcessEnv, string[]]>([
    [
      'a certificate without its key',
      { TEMPORAL_TLS_KEY: undefined },
      ['TEMPORAL_TLS_KEY is required with TEMPORAL_TLS_CERT'],
    ],
    [
      'a key without its certificate',
      { TEMPORAL_TLS_CERT: undefined },
      ['TEMPORAL_TLS_CERT is required with TEMPORAL_TLS_KEY'],
    ],
    [
      'a key of another certificate',
      { TEMPORAL_TLS_KEY: 'SERVER_KEY' },
      ['TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY are not a PEM certificate and its private key'],
    ],
    ['a CA file that cannot be read', { TEMPORAL_TLS_CA: 'MISSING' }, ['TEMPORAL_TLS_CA could not be read (ENOENT)']],
  ])('refuses %s, in every mode, naming the variables only', (_what, change, expected) => {
    const resolved = Object.fromEntries(
      Object.entries(change).map(([k, v]) => [
        k,
        v === 'SERVER_KEY' ? certs.serverKeyFile : v === 'MISSING' ? path.join(certs.dir, 'no-such-ca.pem') : v,
      ]),
    );
    for (const base of [production(), { ...development(), ...temporalTls() }]) {
      const problems = problemsOf({ ...base, ...resolved });
      expect(problems).toEqual(expected.map((p) => expect.stringContaining(p)));
      expect(problems.join('\n')).not.toContain(certs.dir);
    }
  });

  it('the operator CLI reads the same variables, without requiring the certificate', () => {
    const cli = temporalConnectionForCli({ NODE_ENV: 'production', ...temporalTls() });
    expect(temporalConnectionOptions(cli).tls?.clientCertPair).toBeDefined();
    expect(temporalConnectionForCli({ NODE_ENV: 'production' })).toEqual({
      address: '127.0.0.1:7233',
      tls: null,
      serverName: null,
    });
    expect(() => temporalConnectionForCli({ TEMPORAL_TLS_CERT: certs.clientCertFile })).toThrow(
      /TEMPORAL_TLS_KEY is required with TEMPORAL_TLS_CERT/,
    );
  });
});
