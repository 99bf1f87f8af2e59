/**
 * Schema fuzzing with a tool we did not write: schemathesis (pinned, installed by
 * scripts/lib/schemathesis.sh into a git-ignored virtualenv) reads /openapi.json of the running
 * stack and sends positive and negative cases to every operation, as a real merchant (payouts
 * enabled, with a balance, its requests authenticated and signed by test/support/signingProxy).
 * Passes only with 0 server errors and 0 answers the document does not announce (status codes
 * and bodies). The full output is kept in the run's log directory (schemathesis.log).
 *
 * SCHEMATHESIS_ARGS adds arguments (filters) for a run by hand.
 * Budget: SCHEMATHESIS_MAX_EXAMPLES per operation (default 8), one worker and a fixed seed, so a
 * failure reproduces; the run is stopped only when it stops making progress (no request reaches
 * the API for SCHEMATHESIS_STALL_MS), not after a fixed number of seconds.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { assertLedgerInvariant } from '../support/ledger';
import { createOwnedResources, ID_RULES, type OwnedResources } from '../support/merchantResources';
import { fundByPaidCharge } from '../support/payouts';
import { startReceiver, type Receiver } from '../support/receiver';
import { startSigningProxy } from '../support/signingProxy';
import { accessTokenMinter } from '../support/accessTokens';
import { AppClient } from '../support/appClient';
import { MerchantMember } from '../../db/models';
import { testLogFile } from '../support/testLogs';
import { createCourse, createCourseContent, createPrice } from '../support/courses';
import { expectSchemathesisPassed, runSchemathesis } from '../support/schemathesis';

// The hooks' budget (a stack, a funded merchant, its resources). The fuzzing test's own budget
// follows its progress (runSchemathesis stops it only when no request reaches the API for
// SCHEMATHESIS_STALL_MS); its jest timeout is a ceiling for a host many times slower than ours
// (its coverage phase alone took 361–511 s on a loaded 2-core host).
jest.setTimeout(600_000);
const CEILING_MS = 60 * 60_000;

/**
 * Server errors, answers the document does not describe, and (positive_data_acceptance) refusals
 * of requests the document says are valid: a rule the code enforces but the document omits.
 */
const CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'response_schema_conformance',
  'positive_data_acceptance',
];

let stack: IntegrationStack;
let receiver: Receiver;
let proxy: Awaited<ReturnType<typeof startSigningProxy>>;
let owned: OwnedResources;
/** The fuzzing merchant, for application routes that take merchantId in the query. */
let fuzzMerchantId: string;
/** The merchant's catalogue, so /courses cases reach past "not found" too. */
let catalogue: {
  courseId: string;
  spareCourseId: string;
  priceId: string;
  moduleId: string;
  lessonId: string;
  enrolmentId: string;
};

beforeAll(async () => {
  stack = await startIntegrationStack({ webhookDispatcher: true });
  receiver = await startReceiver();
  const merchant = await stack.createMerchant({
    name: 'Loja Fuzz',
    payoutsEnabled: true,
    document: '11144477735',
    pixKeyType: 'EMAIL',
    pixKey: 'financeiro@loja-fuzz.com.br',
  });
  // A balance, so positive cases reach the success paths of withdrawals and payouts too.
  await fundByPaidCharge(stack, merchant, 10_000_000);
  // Real ids for path parameters, so cases reach past "not found" into each route's logic.
  owned = await createOwnedResources(stack, merchant, receiver.url);
  fuzzMerchantId = merchant.merchantId;
  // A signed-in user who owns the merchant, for the application API's bearer routes.
  const email = `fuzz-${Date.now()}@example.com`;
  const user = await new AppClient(stack.apiUrl).register({ email, password: 'fuzzing password 1' });
  await MerchantMember.create({ userId: user.body.id, merchantId: merchant.merchantId, role: 'owner' });
  const app = new AppClient(stack.apiUrl);
  await app.login(email, 'fuzzing password 1');
  const course = await createCourse(app, merchant.merchantId);
  const price = await createPrice(app, course.id, { amountCents: 1_000 });
  const [content] = await createCourseContent(app, course.id, [{ title: 'Módulo', lessons: [{ title: 'Aula' }] }]);
  // An enrolment in that course, so /enrolments cases reach past "not found": on a checkout
  // session of the merchant, written as the paid-checkout hook writes it (enrolments.test.ts pays for real).
  const session = await app.call('POST', '/checkout/sessions', {
    body: { merchantId: merchant.merchantId, amountCents: 1_000 },
    headers: { 'x-idempotency-key': `fuzz-enrolment-${Date.now()}` },
  });
  expect(session.status).toBe(201);
  const enrolmentId = crypto.randomUUID();
  await stack.sequelize.query(
    `INSERT INTO enrolments (id, merchant_id, course_id, checkout_id, student_name, student_document)
     SELECT :id, :m, :course, id, 'Aluna Fuzz', '52998224725' FROM checkouts WHERE merchant_id = :m ORDER BY created_at LIMIT 1`,
    { replacements: { id: enrolmentId, m: merchant.merchantId, course: course.id } },
  );
  catalogue = {
    courseId: course.id,
    spareCourseId: (await createCourse(app, merchant.merchantId)).id,
    priceId: price.id,
    moduleId: content.moduleId,
    lessonId: content.lessonIds[0],
    enrolmentId,
  };
  proxy = await startSigningProxy(stack.apiUrl, merchant, {
    bearer: accessTokenMinter(stack.encryptionKey, user.body.id),
  });
});

afterAll(async () => {
  await proxy?.close();
  await stack?.stop();
  await receiver?.close();
});

/** schemathesis.toml: the checks, and each path parameter fixed to the merchant's own resource (ID_RULES). */
function configFile(dir: string): string {
  // Courses first (the first matching block applies): archive gets a course of its own, so the
  // fuzzed archive does not make every other course case a 409 COURSE_ARCHIVED.
  const c = catalogue;
  const courseBlocks: [string, Record<string, string>][] = [
    ['^/courses/\\{id\\}/archive$', { id: c.spareCourseId }],
    ['^/courses/\\{id\\}/prices/\\{priceId\\}$', { id: c.courseId, priceId: c.priceId }],
    ['^/courses/\\{id\\}/modules/\\{moduleId\\}', { id: c.courseId, moduleId: c.moduleId }],
    ['^/courses/\\{id\\}/lessons/\\{lessonId\\}$', { id: c.courseId, lessonId: c.lessonId }],
    ['^/courses/\\{id\\}', { id: c.courseId }],
    ['^/enrolments/\\{id\\}/lessons/\\{lessonId\\}/complete$', { id: c.enrolmentId, lessonId: c.lessonId }],
    ['^/enrolments/\\{id\\}', { id: c.enrolmentId }],
  ];
  const courseLines = courseBlocks.flatMap(([regex, params]) => [
    '[[operations]]',
    `include-path-regex = '${regex}'`,
    `parameters = { ${Object.entries(params)
      .map(([k, v]) => `"path.${k}" = "${v}"`)
      .join(', ')} }`,
    '',
  ]);
  // A price's interval and retryPolicy belong to SUBSCRIPTION prices only (a cross-field rule: 400
  // naming them); first, so it applies before the course block below that would match it.
  const priceLines = [
    '[[operations]]',
    "include-path-regex = '^/courses/\\{id\\}/prices$'",
    `parameters = { "path.id" = "${c.courseId}" }`,
    'checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404", "409", "429"]',
    '',
  ];
  const lines = priceLines.concat(courseLines).concat(
    Object.entries(ID_RULES).flatMap(([rule, resource]) => {
      const [segment, param] = rule.replace(/[{}]/g, '').split('/');
      return [
        '[[operations]]',
        `include-path-regex = '/${segment}/\\{${param}\\}'`,
        `parameters = { "path.${param}" = "${owned[resource]}" }`,
        '',
      ];
    }),
  );
  // Refusals no schema can announce, so a 400 counts as an acceptable answer to valid data for
  // these two only (every other check still runs on them): a payout item's CPF/CNPJ check
  // digits, and an amount above the merchant's balance (the balance is state, not document).
  const stateful =
    'checks.positive_data_acceptance.expected-statuses = ["2xx", "400", "401", "403", "404", "409", "429"]';
  // A boleto needs a payer (a cross-field rule the schema does not state: 400 naming `payer`).
  // First: the first block that matches an operation applies. The include-* keys of one block are
  // alternatives (OR): a path regex beside a method filter would match every operation with that
  // method, so a block limited to a method names its operations (include-name: "METHOD /path").
  lines.push('[[operations]]', "include-path-regex = '^/charges$'", stateful, '');
  // A PSP connection's certificate and key must be PEM or PKCS#12 that open and belong together:
  // what the bytes hold, which no schema can state (400 naming certPem, keyPem or pfxBase64). A
  // rotation also needs at least one thing to rotate, and its new secrets pass a test at the PSP
  // (422 PSP_CONNECTION_TEST_FAILED: the PSP's answer, not the document's).
  lines.push('[[operations]]', "include-path-regex = '^/dashboard/connection$'", stateful, '');
  lines.push(
    '[[operations]]',
    "include-path-regex = '^/dashboard/connection/rotate$'",
    stateful.replace('"409", ', '"409", "422", '),
    '',
  );
  // A P0 checkout's items name course prices (no method filter: it would match every POST): whether a UUID is a price of this merchant,
  // active, published and ONE_TIME is state the schema cannot state (422 COURSE_PRICE_*, spec codes).
  lines.push(
    '[[operations]]',
    "include-path-regex = '^/v1/checkouts$'",
    stateful.replace('"409", ', '"409", "422", '),
    '',
  );
  // The hosted page's "Simular pagamento" is a form POST: its success is 303 back to the page.
  lines.push(
    '[[operations]]',
    "include-path-regex = '^/c/\\{checkoutId\\}/simulate-payment$'",
    stateful.replace('"2xx", ', '"2xx", "303", '),
    '',
  );
  lines.push('[[operations]]', "include-name = 'POST /v1/payouts/batches'", stateful, '');
  lines.push('[[operations]]', "include-name-regex = '^POST /(sellers|rifeiro)/saques$'", stateful, '');
  // The merchant's own settlements and schedule, so these cases reach past 404 MERCHANT_NOT_FOUND.
  lines.push(
    '[[operations]]',
    "include-path-regex = '^/settlements/schedule$'",
    `parameters = { "query.merchantId" = "${fuzzMerchantId}" }`,
    '',
  );
  lines.push(
    '[[operations]]',
    "include-name = 'GET /settlements'",
    `parameters = { "query.merchantId" = "${fuzzMerchantId}" }`,
    '',
  );
  // A settlement of more than the balance (or, later in the run, of a balance already settled) is a 400 too.
  lines.push('[[operations]]', "include-name = 'POST /settlements'", stateful, '');
  // Cross-field rules of the application API no schema states: a document comes with its type
  // (and right check digits); deleting an account needs the password or an action token.
  lines.push('[[operations]]', "include-path-regex = '^/auth/(register|update-profile|delete-account)$'", stateful, '');
  // Until the method filters above were made names, their blocks applied these statuses to every
  // POST. Named now, each with the rule its schema cannot state (found by the run once named):
  //  - CPF/CNPJ check digits: /boletos (payer), /charges/{id}/refund (a CPF Pix key), /dashboard/merchant/ensure;
  //  - dates that must be real calendar days, or within a window from now: /boletos (dueDate),
  //    /reconciliations (from, to), /sellers/pix and /rifeiro/pix (expiresAt: 1 minute to 30 days ahead);
  //  - sums and uniqueness across items: /checkout/sessions (Σ items = amountCents),
  //    /dashboard/credentials (each scope once), /med/infractions/analysis (each infraction once);
  //  - the user's own upload key (/auth/avatar/confirm) and an e-mail by our stricter address rule (/auth/login);
  //  - a day range whose `from` is after its `to`: /dashboard/transactions (as /reconciliations' from and to).
  const refusedByRulesNoSchemaStates = [
    'POST /boletos',
    'POST /charges/{id}/refund',
    'POST /dashboard/merchant/ensure',
    'POST /reconciliations',
    'POST /sellers/pix',
    'POST /rifeiro/pix',
    'POST /checkout/sessions',
    'POST /dashboard/credentials',
    'POST /med/infractions/analysis',
    'POST /auth/avatar/confirm',
    'POST /auth/login',
    'GET /dashboard/transactions',
  ];
  for (const name of refusedByRulesNoSchemaStates)
    lines.push('[[operations]]', `include-name = '${name}'`, stateful, '');
  // A subscription's purchase: the journey's rules (payerAccount for JOURNEY_1 only), the payer's
  // CPF/CNPJ check digits and firstDueDate's window from today (400), and whether the price is a
  // SUBSCRIPTION price of this merchant, active and published (state: 422 COURSE_PRICE_*).
  for (const name of ['POST /subscriptions', 'POST /v1/subscriptions'])
    lines.push('[[operations]]', `include-name = '${name}'`, stateful.replace('"409", ', '"409", "422", '), '');

  const file = path.join(dir, 'schemathesis.toml');
  fs.writeFileSync(file, lines.join('\n'));
  return file;
}

it(
  'finds no server error and no answer outside the OpenAPI document, positive and negative cases',
  async () => {
    const logFile = testLogFile('schemathesis.log') ?? path.join(os.tmpdir(), `schemathesis-${process.pid}.log`);
    const maxExamples = process.env.SCHEMATHESIS_MAX_EXAMPLES ?? '8';
    const result = await runSchemathesis(
      [
        '--config-file',
        configFile(path.dirname(logFile)),
        'run',
        '--checks',
        CHECKS.join(','),
        `${proxy.url}/openapi.json`,
        '--url',
        proxy.url,
        '--mode',
        'all',
        '--max-examples',
        maxExamples,
        '--seed',
        '20261122',
        // One worker and no example database: the same seed gives the same cases run after run.
        '--workers',
        '1',
        '--generation-database',
        'none',
        // One request's answer; a loaded host answers in well under a second.
        '--request-timeout',
        '60',
        '--suppress-health-check',
        'too_slow,filter_too_much',
        '--no-color',
        // e.g. SCHEMATHESIS_ARGS="--include-path-regex ^/sellers/webhooks" to look at one area.
        ...(process.env.SCHEMATHESIS_ARGS?.split(' ').filter(Boolean) ?? []),
      ],
      logFile,
      { progress: proxy.requests },
    );
    expectSchemathesisPassed(result, logFile);
    await assertLedgerInvariant(stack.sequelize);
  },
  CEILING_MS,
);
