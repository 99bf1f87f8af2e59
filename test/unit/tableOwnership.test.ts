/**
 * One owner per table, read from the source tree (no database):
 * - api/ reaches the database only through the domains' db modules (`db/<domain>`, their index:
 *   stores and row types) and never imports a model, a model file or the model barrel, runs SQL
 *   (`.query(`, `QueryTypes`) or builds Sequelize queries (`Op`, `literal`, `fn`, `Transaction`);
 * - every table the migrations create has exactly one owner module (OWNERS below), which exists
 *   and names the table (in its SQL, or through the model it writes);
 * - outside its owner no product file writes a table with raw SQL (INSERT INTO / UPDATE / DELETE
 *   FROM), and only a table's owner (and db/models/index.ts, which binds them) imports its model
 *   class as a value: every other writer is listed in EXCEPTIONS with the reason it is still one,
 *   and an exception that no longer applies fails too, so the list only shrinks;
 * - a domain's db index exports models as types only.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** Table → the one module that writes it and that its readers go through. */
const OWNERS: Record<string, string> = {
  // identity
  merchants: 'db/identity/merchantStore.ts',
  merchant_members: 'db/identity/memberStore.ts',
  users: 'db/identity/userStore.ts',
  api_credentials: 'db/identity/apiCredentialStore.ts',
  user_sessions: 'db/identity/sessionStore.ts',
  refresh_tokens: 'db/identity/sessionStore.ts',
  user_second_factors: 'db/identity/secondFactorStore.ts',
  recovery_codes: 'db/identity/secondFactorStore.ts',
  auth_challenges: 'db/identity/secondFactorStore.ts',
  action_tokens: 'db/identity/secondFactorStore.ts',
  login_throttles: 'db/identity/loginThrottleStore.ts',
  request_signatures_seen: 'db/identity/requestSignatureStore.ts',
  // charges
  charges: 'db/charges/chargeStore.ts',
  charge_splits: 'db/charges/chargeStore.ts',
  charge_tombstones: 'db/charges/chargeStore.ts',
  payment_alerts: 'db/charges/paymentAlertStore.ts',
  provider_events: 'db/charges/providerEventStore.ts',
  provider_callback_health: 'db/charges/callbackHealthStore.ts',
  // boletos, checkouts, marketplace
  boleto_batches: 'db/boletos/boletoBatchStore.ts',
  boleto_batch_items: 'db/boletos/boletoBatchStore.ts',
  checkouts: 'db/checkouts/checkoutStore.ts',
  checkout_items: 'db/checkouts/checkoutStore.ts',
  courses: 'db/marketplace/courseStore.ts',
  course_prices: 'db/marketplace/courseStore.ts',
  course_modules: 'db/marketplace/courseStore.ts',
  course_lessons: 'db/marketplace/courseStore.ts',
  enrolments: 'db/marketplace/enrolmentStore.ts',
  lesson_progress: 'db/marketplace/enrolmentStore.ts',
  certificates: 'db/marketplace/enrolmentStore.ts',
  // subscriptions by Pix Automático (their cycles' charges are rows of charges, written by its owner)
  subscriptions: 'db/subscriptions/subscriptionStore.ts',
  subscription_cycles: 'db/subscriptions/subscriptionStore.ts',
  // money out
  refunds: 'db/refunds/refundStore.ts',
  withdrawals: 'db/withdrawals/withdrawalStore.ts',
  payout_batches: 'db/payouts/payoutStore.ts',
  payout_items: 'db/payouts/payoutStore.ts',
  settlements: 'db/settlements/settlementStore.ts',
  settlement_schedules: 'db/settlements/settlementStore.ts',
  reconciliations: 'db/reconciliations/reconciliationStore.ts',
  med_infractions: 'db/med/medInfractionStore.ts',
  med_infraction_alerts: 'db/med/medCaseStore.ts',
  med_infraction_defences: 'db/med/medCaseStore.ts',
  med_infraction_evidence: 'db/med/medCaseStore.ts',
  // merchants' own PSP connections (connected accounts)
  psp_connections: 'db/connections/pspConnectionStore.ts',
  psp_balance_readings: 'db/connections/balanceReadingStore.ts',
  // shares of a connected merchant's charge sent from its own account after settlement
  split_sends: 'db/splitSends/splitSendStore.ts',
  // the money core: one ledger writer (reads for other code: db/ledger/balanceStore.ts)
  ledger_accounts: 'activities/ledger/ledgerWriter.ts',
  ledger_transactions: 'activities/ledger/ledgerWriter.ts',
  ledger_postings: 'activities/ledger/ledgerWriter.ts',
  // events (merchant webhooks)
  outbox_events: 'db/events/outboxStore.ts',
  webhook_endpoints: 'db/events/webhookEndpointStore.ts',
  webhook_deliveries: 'db/events/deliveryStore.ts',
  webhook_delivery_attempts: 'db/events/deliveryStore.ts',
  // the rest
  receipt_documents: 'db/receipts/receiptDocumentStore.ts',
  outgoing_mails: 'db/mail/outgoingMailStore.ts',
  idempotency_records: 'db/idempotency/idempotencyStore.ts',
  // Written by triggers on charges and refunds (migration 0022); read through its store.
  dashboard_daily: 'db/dashboard/figureStore.ts',
  // Written by a trigger on charges (migration 0047); read through its store.
  dashboard_payer_months: 'db/dashboard/figureStore.ts',
};

/** Files that still write a table they do not own, or import its model; each with why. */
// Every file writes only the tables it owns: no exception is left. A new one must say why here.
const EXCEPTIONS: Record<string, { tables: string[]; why: string }> = {};

const PRODUCT_ROOTS = ['api', 'activities', 'core', 'db', 'workers', 'cli', 'sandbox', 'config.ts'];

function walk(rel: string): string[] {
  const abs = path.join(ROOT, rel);
  if (!fs.existsSync(abs)) return [];
  if (fs.statSync(abs).isFile()) return rel.endsWith('.ts') ? [rel] : [];
  return fs
    .readdirSync(abs)
    .sort()
    .flatMap((name) => walk(path.posix.join(rel, name)));
}

const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');

interface ImportDecl {
  /** The specifier resolved to a repository path without extension ('db/charges/charge'), or the package name. */
  target: string;
  typeOnly: boolean;
  /** Names imported as values (not `type X`). */
  values: string[];
}

const IMPORT =
  /\b(import|export)\s+(type\s+)?(?:(\*\s+as\s+\w+)|(\w+)|\{([^}]*)\}|(\w+)\s*,\s*\{([^}]*)\})?\s*(?:from\s+)?'([^']+)'/g;

function importsOf(rel: string, text: string): ImportDecl[] {
  const out: ImportDecl[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const [, , typeKw, star, def, names, def2, names2, spec] = m;
    const target = spec.startsWith('.') ? path.posix.normalize(path.posix.join(path.posix.dirname(rel), spec)) : spec;
    const listed = (names ?? names2 ?? '')
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean);
    const values = typeKw
      ? []
      : [
          ...((def ?? def2) ? [def ?? def2] : []),
          ...(star ? ['*'] : []),
          ...listed.filter((n) => !n.startsWith('type ')).map((n) => n.split(/\s+as\s+/)[0].trim()),
        ];
    out.push({ target, typeOnly: Boolean(typeKw), values });
  }
  return out;
}

/** db model files: their classes and the table each binds. */
function modelFiles(): Map<string, Map<string, string>> {
  const models = new Map<string, Map<string, string>>();
  for (const rel of walk('db')) {
    const text = read(rel);
    if (!/extends Model</.test(text)) continue;
    const classes = [...text.matchAll(/class (\w+) extends Model</g)].map((m) => m[1]);
    const tables = [...text.matchAll(/tableName: '([a-z_]+)'/g)].map((m) => m[1]);
    expect({ file: rel, tables: tables.length }).toEqual({ file: rel, tables: classes.length });
    models.set(rel.replace(/\.ts$/, ''), new Map(classes.map((c, i) => [c, tables[i]])));
  }
  return models;
}

function migrationTables(): string[] {
  const tables = new Set<string>();
  for (const rel of walk('db/migrations')) {
    for (const m of read(rel).matchAll(/CREATE TABLE (?:IF NOT EXISTS )?([a-z_]+)/gi)) tables.add(m[1]);
  }
  return [...tables].sort();
}

const MODELS = modelFiles();
/** Model class → table, for every model (the barrel re-exports them under the same names). */
const MODEL_TABLE = new Map([...MODELS.values()].flatMap((m) => [...m.entries()]));
const TABLES = migrationTables();
const productFiles = PRODUCT_ROOTS.flatMap(walk).filter((f) => !f.startsWith('db/migrations/'));

/** Tables a file writes with raw SQL. */
function sqlWrites(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+([a-z_]+)/g))
    if (TABLES.includes(m[1])) found.add(m[1]);
  return [...found];
}

/** Tables whose model class a file imports as a value (from the barrel or a model file). */
function modelImports(rel: string, text: string): string[] {
  const found = new Set<string>();
  for (const imp of importsOf(rel, text)) {
    const fromModelFile = MODELS.get(imp.target);
    if (imp.target !== 'db/models' && imp.target !== 'db/models/index' && !fromModelFile) continue;
    for (const name of imp.values) {
      const table = fromModelFile ? fromModelFile.get(name) : MODEL_TABLE.get(name);
      if (table) found.add(table);
      if (name === '*')
        (fromModelFile ? [...fromModelFile.values()] : [...MODEL_TABLE.values()]).forEach((t) => found.add(t));
    }
  }
  return [...found];
}

describe('api/ reaches tables only through the domains’ db modules', () => {
  const apiFiles = walk('api');
  const ALLOWED_DB = /^db\/([a-z]+|tx|diagnostics|sequelize|migrator)$/;
  const SEQUELIZE_NAMES = new Set(['ConnectionError', 'ConnectionAcquireTimeoutError']);

  it('finds the api files', () => {
    expect(apiFiles.length).toBeGreaterThan(100);
  });

  it.each(apiFiles)('%s imports no model and runs no SQL', (rel) => {
    const text = read(rel);
    const problems: string[] = [];
    for (const imp of importsOf(rel, text)) {
      if (imp.target.startsWith('db/')) {
        const dir = path.join(ROOT, imp.target);
        const isDomainIndex = fs.existsSync(path.join(dir, 'index.ts')) && imp.target !== 'db/models';
        if (
          !ALLOWED_DB.test(imp.target) ||
          (/^db\/[a-z]+$/.test(imp.target) && !isDomainIndex && !fs.existsSync(`${dir}.ts`))
        )
          problems.push(`imports ${imp.target}: go through its domain's db module (db/<domain>)`);
        if (imp.target === 'db/models') problems.push('imports the model barrel db/models');
      }
      if (imp.target === 'sequelize')
        for (const name of imp.values)
          if (!SEQUELIZE_NAMES.has(name)) problems.push(`imports ${name} from sequelize (stores build queries)`);
    }
    if (/\.query\(/.test(text)) problems.push('runs SQL (.query()');
    if (/\bQueryTypes\b/.test(text)) problems.push('uses QueryTypes');
    if (/import[^;]*\b(Op|Transaction|literal|fn|WhereOptions)\b[^;]*from 'sequelize'/.test(text))
      problems.push('imports a query builder or Transaction from sequelize (use db/tx.ts for the transaction type)');
    expect(problems).toEqual([]);
  });
});

describe('every table has exactly one owner module', () => {
  it('the owner map names exactly the tables the migrations create', () => {
    expect(Object.keys(OWNERS).sort()).toEqual(TABLES);
  });

  it.each(Object.entries(OWNERS))('%s: its owner %s exists and names it', (table, owner) => {
    expect(fs.existsSync(path.join(ROOT, owner))).toBe(true);
    const text = read(owner);
    const named = new RegExp(`\\b${table}\\b`).test(text) || modelImports(owner, text).includes(table);
    expect({ table, owner, named }).toEqual({ table, owner, named: true });
  });
});

describe('no table is written outside its owner', () => {
  const writers = productFiles.map((rel) => {
    const text = read(rel);
    const written = new Set([...sqlWrites(text), ...(rel === 'db/models/index.ts' ? [] : modelImports(rel, text))]);
    return { rel, foreign: [...written].filter((t) => OWNERS[t] !== rel).sort() };
  });

  it('outside the exceptions, a file writes (raw SQL) or imports the model of only the tables it owns', () => {
    const offenders = writers
      .filter((w) => w.foreign.length > 0 && !EXCEPTIONS[w.rel])
      .map((w) => `${w.rel}: ${w.foreign.join(', ')}`);
    expect(offenders).toEqual([]);
  });

  // jest refuses an empty table: with no exception left there is nothing to check.
  const exceptions = Object.entries(EXCEPTIONS);
  if (exceptions.length > 0)
    it.each(exceptions)('exception %s is still needed, and lists exactly what it writes', (rel, exc) => {
      const found = writers.find((w) => w.rel === rel);
      expect({ rel, writes: found?.foreign ?? [] }).toEqual({ rel, writes: [...exc.tables].sort() });
    });
});

describe('domain db modules export models as types only', () => {
  const indexes = walk('db').filter((f) => /^db\/[a-z]+\/index\.ts$/.test(f) && f !== 'db/models/index.ts');

  it.each(indexes)('%s', (rel) => {
    const text = read(rel);
    const valueExports = [...text.matchAll(/export\s+\{([^}]*)\}/g)]
      .flatMap((m) => m[1].split(','))
      .map((n) => n.trim())
      .filter((n) => n && !n.startsWith('type '))
      .filter((n) => MODEL_TABLE.has(n.split(/\s+as\s+/)[0]));
    expect(valueExports).toEqual([]);
  });
});
