/**
 * Enrolments, progress and certificates (/enrolments, application API) over HTTP on the real
 * stack. Every enrolment here is made the real way: a course with lessons through /courses, a P0
 * checkout through /v1/checkouts, paid in the sandbox, so the charge lifecycle's hook inserted it.
 * Then: list and filters, the read, idempotent progress, exactly one certificate under concurrent
 * completions, the PDF read back by poppler (pdftotext, pdftoppm) and its QR by zbarimg, the
 * public verify route (genuine, tampered, revoked by a full refund), roles and another merchant.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { runTool } from '../support/externalTools';
import { AppClient } from '../support/appClient';
import { waitFor } from '../support/env';
import { sharedIntegrationStack, type SharedStack } from '../support/sharedStack';
import { assertLedgerInvariant } from '../support/ledger';
import { producer, type Producer } from '../support/checkouts';
import { paidEnrolment, STUDENT } from '../support/enrolments';
import { signedInUser } from '../support/signedIn';

jest.setTimeout(240_000);

const root = path.resolve(__dirname, '..', '..');
let stack: SharedStack;
let shop: Producer;
let other: Producer;

const ENROLMENT_FIELDS = [
  'certificate',
  'checkoutId',
  'courseId',
  'createdAt',
  'id',
  'merchantId',
  'progress',
  'revokedAt',
  'revokedReason',
  'status',
  'student',
  'subscriptionId',
  'updatedAt',
];

beforeAll(async () => {
  execFileSync('bash', [path.join(root, 'scripts/lib/debianTools.sh'), '--ensure'], {
    stdio: 'inherit',
    timeout: 300_000,
  });
  stack = await sharedIntegrationStack();
  shop = await producer(stack);
  other = await producer(stack);
});

afterAll(async () => {
  await stack?.stop();
});

afterEach(async () => {
  await assertLedgerInvariant(stack.sequelize);
});

async function member(merchantId: string, role: 'viewer' | 'finance'): Promise<AppClient> {
  const { client, userId } = await signedInUser(stack, { emailPrefix: role });
  await stack.sequelize.query(`INSERT INTO merchant_members (user_id, merchant_id, role) VALUES (:u, :m, :role)`, {
    replacements: { u: userId, m: merchantId, role },
  });
  return client;
}

async function fetchPdf(client: AppClient, enrolmentId: string) {
  const res = await fetch(`${stack.apiUrl}/enrolments/${enrolmentId}/certificate`, {
    headers: { authorization: `Bearer ${client.accessToken}` },
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

const pdfText = async (pdf: Buffer) =>
  (await runTool('pdftotext', ['-layout', '-', '-'], { input: pdf })).replace(/\s+/g, ' ');

/** The PDF's page rendered by pdftoppm and its QR read back by zbarimg. */
async function pdfQr(pdf: Buffer): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'certificate-'));
  try {
    fs.writeFileSync(path.join(dir, 'c.pdf'), pdf);
    await runTool('pdftoppm', ['-png', '-r', '150', '-singlefile', path.join(dir, 'c.pdf'), path.join(dir, 'page')]);
    // stderr captured: zbarimg prints D-Bus noise on machines without a system bus.
    return (await runTool('zbarimg', ['--quiet', '--raw', path.join(dir, 'page.png')])).trim();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const verify = async (url: string): Promise<any> =>
  (await fetch(url, { headers: { accept: 'application/json' } })).json();

it('a paid checkout enrols once: listed, filtered by course and status, read with the masked student and 0 % progress', async () => {
  const a = await paidEnrolment(stack, shop, { lessons: 2 });
  const b = await paidEnrolment(stack, shop, { lessons: 1 });
  const read = await shop.client.call('GET', `/enrolments/${a.enrolmentId}`);
  expect(read.status).toBe(200);
  expect(Object.keys(read.body).sort()).toEqual(ENROLMENT_FIELDS);
  expect(read.body).toEqual({
    id: a.enrolmentId,
    merchantId: shop.merchantId,
    courseId: a.course.id,
    checkoutId: a.checkoutId,
    subscriptionId: null,
    status: 'ACTIVE',
    student: { name: STUDENT.name, document: '***.982.247-**' },
    progress: { completedLessons: 0, totalLessons: 2, percentage: 0 },
    certificate: null,
    revokedAt: null,
    revokedReason: null,
    createdAt: expect.any(String),
    updatedAt: expect.any(String),
  });
  expect(a.checkoutId).toMatch(/^bill_[0-9a-f-]{36}$/);

  const list = await shop.client.call('GET', `/enrolments?merchantId=${shop.merchantId}&limit=1`);
  expect(list.status).toBe(200);
  expect(list.body.data).toHaveLength(1);
  expect(list.body.data[0].id).toBe(b.enrolmentId); // newest first
  expect(list.body.pagination).toEqual({ total: expect.any(Number), limit: 1, offset: 0, hasMore: true });
  const byCourse = await shop.client.call('GET', `/enrolments?courseId=${a.course.id}`);
  expect(byCourse.body.data.map((e: { id: string }) => e.id)).toEqual([a.enrolmentId]);
  expect(byCourse.body.pagination).toEqual({ total: 1, limit: 20, offset: 0, hasMore: false });
  expect((await shop.client.call('GET', `/enrolments?courseId=${a.course.id}&status=REVOKED`)).body.data).toEqual([]);
  for (const bad of ['status=DONE', 'limit=0', 'limit=101', 'offset=-1', 'courseId=abc', 'merchantId=abc', 'extra=1']) {
    const res = await shop.client.call('GET', `/enrolments?${bad}`);
    expect([bad, res.status, res.body.error?.code]).toEqual([bad, 400, 'VALIDATION_ERROR']);
  }
  expect((await shop.client.call('GET', '/enrolments/not-a-uuid')).body.error.code).toBe('VALIDATION_ERROR');
  expect((await shop.client.call('GET', `/enrolments/${crypto.randomUUID()}`)).status).toBe(404);
});

it('progress is idempotent; a lesson of another course is 404 LESSON_NOT_FOUND; 100 % issues exactly one certificate under concurrent completions', async () => {
  const e = await paidEnrolment(stack, shop, { lessons: 3, title: 'Pix para iniciantes' });
  const first = await shop.client.call('POST', `/enrolments/${e.enrolmentId}/lessons/${e.lessonIds[0]}/complete`);
  expect(first.status).toBe(200);
  expect(first.body).toEqual({
    completedLessons: 1,
    totalLessons: 3,
    percentage: 33,
    lessons: [{ lessonId: e.lessonIds[0], completedAt: expect.any(String) }],
  });
  const again = await shop.client.call('POST', `/enrolments/${e.enrolmentId}/lessons/${e.lessonIds[0]}/complete`);
  expect(again.body).toEqual(first.body);
  expect((await shop.client.call('GET', `/enrolments/${e.enrolmentId}/progress`)).body).toEqual(first.body);

  const otherCourse = await paidEnrolment(stack, shop, { lessons: 1 });
  const foreignLesson = await shop.client.call(
    'POST',
    `/enrolments/${e.enrolmentId}/lessons/${otherCourse.lessonIds[0]}/complete`,
  );
  expect([foreignLesson.status, foreignLesson.body.error.code]).toEqual([404, 'LESSON_NOT_FOUND']);
  expect(
    (await shop.client.call('POST', `/enrolments/${e.enrolmentId}/lessons/${crypto.randomUUID()}/complete`)).body.error
      .code,
  ).toBe('LESSON_NOT_FOUND');
  expect((await shop.client.call('POST', `/enrolments/${e.enrolmentId}/lessons/abc/complete`)).body.error.code).toBe(
    'VALIDATION_ERROR',
  );

  const early = await fetchPdf(shop.client, e.enrolmentId);
  expect(early.status).toBe(409);
  expect(JSON.parse(early.bytes.toString('utf8')).error.code).toBe('CERTIFICATE_UNAVAILABLE');

  // The two remaining lessons, each completed several times at once.
  const answers = await Promise.all(
    [1, 2, 1, 2, 1, 2].map((i) =>
      shop.client.call('POST', `/enrolments/${e.enrolmentId}/lessons/${e.lessonIds[i]}/complete`),
    ),
  );
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
  const [rows] = (await stack.sequelize.query(`SELECT count(*)::int AS n FROM certificates WHERE enrolment_id = :id`, {
    replacements: { id: e.enrolmentId },
  })) as [Array<{ n: number }>, unknown];
  expect(rows[0].n).toBe(1);
  const done = await shop.client.call('GET', `/enrolments/${e.enrolmentId}`);
  expect(done.body.progress).toEqual({ completedLessons: 3, totalLessons: 3, percentage: 100 });
  expect(done.body.certificate).toEqual({
    id: expect.any(String),
    issuedAt: expect.any(String),
    verificationUrl: expect.stringMatching(new RegExp(`^${stack.apiUrl}/receipts/verify\\?code=[A-Za-z0-9_-]+$`)),
  });
  expect((await shop.client.call('GET', `/enrolments/${e.enrolmentId}/progress`)).body.lessons).toHaveLength(3);
});

it('the certificate PDF: text read back by pdftotext, its QR decoded by zbarimg is the verify URL; the verify route says genuine, tampered → not', async () => {
  const e = await paidEnrolment(stack, shop, { lessons: 1, title: 'Finanças com ação' });
  await shop.client.call('POST', `/enrolments/${e.enrolmentId}/lessons/${e.lessonIds[0]}/complete`);
  const certificate = (await shop.client.call('GET', `/enrolments/${e.enrolmentId}`)).body.certificate;
  const viewer = await member(shop.merchantId, 'viewer');
  const pdf = await fetchPdf(viewer, e.enrolmentId);
  expect(pdf.status).toBe(200);
  expect(pdf.headers.get('content-type')).toBe('application/pdf');
  expect(pdf.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  const text = await pdfText(pdf.bytes);
  const issued = new Intl.DateTimeFormat('pt-BR', {
    timeZone: 'America/Sao_Paulo',
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
  }).format(new Date(certificate.issuedAt));
  for (const expected of [
    'Certificado de conclusão',
    STUDENT.name,
    'Finanças com ação',
    'Escola Teste',
    issued,
    certificate.id,
  ])
    expect(text).toContain(expected);

  const qr = await pdfQr(pdf.bytes);
  expect(qr).toMatch(new RegExp(`^${stack.apiUrl}/receipts/verify\\?code=[A-Za-z0-9_-]+$`));
  const code = new URL(qr).searchParams.get('code')!;
  expect(text.replace(/\s/g, '')).toContain(code);
  const genuine = await verify(qr);
  expect(genuine).toEqual({
    authentic: true,
    kind: 'CERTIFICATE',
    valid: true,
    status: 'VALID',
    revokedAt: null,
    certificateId: certificate.id,
    student: { name: STUDENT.name, document: '***.982.247-**' },
    courseTitle: 'Finanças com ação',
    merchantName: 'Escola Teste',
    issuedAt: certificate.issuedAt,
  });
  expect(await verify(certificate.verificationUrl)).toEqual(genuine);
  const html = await (await fetch(qr, { headers: { accept: 'text/html' } })).text();
  expect(html).toContain('Certificado válido');
  expect(html).not.toContain(STUDENT.document);

  // One character changed, or the facts edited behind the code: not genuine.
  const flipped = code.slice(0, 20) + (code[20] === 'A' ? 'B' : 'A') + code.slice(21);
  expect(await verify(`${stack.apiUrl}/receipts/verify?code=${flipped}`)).toEqual({ authentic: false });
  await stack.sequelize.query(`UPDATE certificates SET course_title = 'Outro curso' WHERE id = :id`, {
    replacements: { id: certificate.id },
  });
  expect(await verify(qr)).toEqual({ authentic: false });
  await stack.sequelize.query(`UPDATE certificates SET course_title = 'Finanças com ação' WHERE id = :id`, {
    replacements: { id: certificate.id },
  });
  expect((await verify(qr)).authentic).toBe(true);
});

it('a full refund revokes the enrolment: completing → 409 ENROLMENT_REVOKED, the certificate 409 and verified as revoked (not valid)', async () => {
  const e = await paidEnrolment(stack, shop, { lessons: 2 });
  await shop.client.call('POST', `/enrolments/${e.enrolmentId}/lessons/${e.lessonIds[0]}/complete`);
  await shop.client.call('POST', `/enrolments/${e.enrolmentId}/lessons/${e.lessonIds[1]}/complete`);
  const verificationUrl = (await shop.client.call('GET', `/enrolments/${e.enrolmentId}`)).body.certificate
    .verificationUrl;
  expect((await verify(verificationUrl)).valid).toBe(true);

  // The charge must be settled before it can be refunded: wait for the enrolment's checkout PAID.
  await waitFor(
    async () => (await shop.client.call('GET', `/charges/${e.chargeId}`)).body.status === 'PAID',
    'charge PAID',
  );
  const refund = await shop.client.call('POST', `/charges/${e.chargeId}/refund`, {
    body: { reason: 'desistência' },
    headers: { 'x-idempotency-key': `r-${crypto.randomUUID()}` },
  });
  expect(refund.status).toBe(200);
  const revoked = await waitFor(async () => {
    const res = await shop.client.call('GET', `/enrolments/${e.enrolmentId}`);
    return res.body.status === 'REVOKED' ? res.body : undefined;
  }, 'enrolment REVOKED');
  expect(revoked).toMatchObject({
    status: 'REVOKED',
    revokedReason: 'REFUNDED',
    revokedAt: expect.any(String),
    certificate: null,
  });
  expect(
    (await shop.client.call('GET', `/enrolments?courseId=${e.course.id}&status=REVOKED`)).body.data.map(
      (x: { id: string }) => x.id,
    ),
  ).toEqual([e.enrolmentId]);

  const complete = await shop.client.call('POST', `/enrolments/${e.enrolmentId}/lessons/${e.lessonIds[0]}/complete`);
  expect([complete.status, complete.body.error.code]).toEqual([409, 'ENROLMENT_REVOKED']);
  const pdf = await fetchPdf(shop.client, e.enrolmentId);
  expect([pdf.status, JSON.parse(pdf.bytes.toString('utf8')).error.code]).toEqual([409, 'CERTIFICATE_UNAVAILABLE']);
  expect(await verify(verificationUrl)).toMatchObject({
    authentic: true,
    kind: 'CERTIFICATE',
    valid: false,
    status: 'REVOKED',
    revokedAt: revoked.revokedAt,
  });
  const html = await (await fetch(verificationUrl, { headers: { accept: 'text/html' } })).text();
  expect(html).toContain('Certificado revogado');
});

it('roles: a viewer reads but cannot record progress (403); finance can; another merchant gets 404 ENROLMENT_NOT_FOUND everywhere; no token → 401', async () => {
  const e = await paidEnrolment(stack, shop, { lessons: 2 });
  const viewer = await member(shop.merchantId, 'viewer');
  expect((await viewer.call('GET', `/enrolments/${e.enrolmentId}`)).status).toBe(200);
  expect((await viewer.call('GET', `/enrolments/${e.enrolmentId}/progress`)).status).toBe(200);
  const denied = await viewer.call('POST', `/enrolments/${e.enrolmentId}/lessons/${e.lessonIds[0]}/complete`);
  expect([denied.status, denied.body.error.code]).toEqual([403, 'INSUFFICIENT_ROLE']);
  const finance = await member(shop.merchantId, 'finance');
  expect((await finance.call('POST', `/enrolments/${e.enrolmentId}/lessons/${e.lessonIds[0]}/complete`)).status).toBe(
    200,
  );

  for (const [method, route] of [
    ['GET', `/enrolments/${e.enrolmentId}`],
    ['GET', `/enrolments/${e.enrolmentId}/progress`],
    ['GET', `/enrolments/${e.enrolmentId}/certificate`],
    ['POST', `/enrolments/${e.enrolmentId}/lessons/${e.lessonIds[1]}/complete`],
  ] as const) {
    const res = await other.client.call(method, route);
    expect([route, res.status, res.body.error?.code]).toEqual([route, 404, 'ENROLMENT_NOT_FOUND']);
  }
  const foreignList = await other.client.call('GET', `/enrolments?merchantId=${shop.merchantId}`);
  expect([foreignList.status, foreignList.body.error.code]).toEqual([404, 'MERCHANT_NOT_FOUND']);
  expect((await other.client.call('GET', '/enrolments')).body.data).toEqual([]);
  expect((await new AppClient(stack.apiUrl).call('GET', `/enrolments/${e.enrolmentId}`)).status).toBe(401);
  expect((await shop.client.call('GET', `/enrolments/${e.enrolmentId}/progress`)).body.completedLessons).toBe(1);
});
