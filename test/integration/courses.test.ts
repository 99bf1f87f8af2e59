/**
 * The marketplace catalogue (/courses, application API) over HTTP on the real stack: courses and
 * their transitions (refused ones too), prices, modules and lessons, validation (400, nothing
 * changes), roles (viewer reads, cannot write), another merchant's resources (404, never 403).
 */
import crypto from 'node:crypto';
import { AppClient } from '../support/appClient';
import {
  archiveCourse,
  createCourse,
  createCourseContent,
  createPrice,
  createPublishedCourseWithPrice,
  publishCourse,
} from '../support/courses';
import { sharedIntegrationStack, type SharedStack } from '../support/sharedStack';
import { signedInMerchant, signedInUser } from '../support/signedIn';

jest.setTimeout(120_000);

let stack: SharedStack;
const COURSE_FIELDS = [
  'accessType',
  'createdAt',
  'description',
  'id',
  'merchantId',
  'status',
  'thumbnailUrl',
  'title',
  'updatedAt',
];

beforeAll(async () => {
  stack = await sharedIntegrationStack();
});

afterAll(async () => {
  await stack?.stop();
});

const owner = () => signedInMerchant(stack, { emailPrefix: 'owner', name: 'Escola Online' });

async function member(merchantId: string, role: 'viewer' | 'finance' | 'admin'): Promise<AppClient> {
  const { client, userId } = await signedInUser(stack, { emailPrefix: role });
  await stack.sequelize.query(`INSERT INTO merchant_members (user_id, merchant_id, role) VALUES (:u, :m, :role)`, {
    replacements: { u: userId, m: merchantId, role },
  });
  return client;
}

async function count(table: string, where = 'TRUE', replacements: Record<string, unknown> = {}): Promise<number> {
  const [rows] = await stack.sequelize.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, {
    replacements,
  });
  return (rows as { n: number }[])[0].n;
}

/** The fields a VALIDATION_ERROR names, each once (a field may break several rules). */
function fieldsOf(res: { body: any }): string[] {
  return [...new Set((res.body.error.details.fields as { field: string }[]).map((f) => f.field))].sort();
}

it('creates a course (the spec’s Course exactly, DRAFT), reads it, lists it with pagination and a status filter', async () => {
  const { client, merchantId } = await owner();
  const res = await client.call('POST', '/courses', {
    body: {
      merchantId,
      title: '  Pix do zero  ',
      description: 'Linha 1\nLinha 2',
      thumbnailUrl: 'https://cdn.example.com/pix.png',
      accessType: 'LIFETIME',
    },
  });
  expect(res.status).toBe(201);
  expect(Object.keys(res.body).sort()).toEqual(COURSE_FIELDS);
  expect(res.body).toMatchObject({
    merchantId,
    title: 'Pix do zero',
    description: 'Linha 1\nLinha 2',
    thumbnailUrl: 'https://cdn.example.com/pix.png',
    status: 'DRAFT',
    accessType: 'LIFETIME',
  });
  expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);
  const read = await client.call('GET', `/courses/${res.body.id}`);
  expect(read.status).toBe(200);
  expect(read.body).toEqual(res.body);
  // Defaults: no description → '', no thumbnail → null.
  const bare = await client.call('POST', '/courses', {
    body: { merchantId, title: 'Curso 2', accessType: 'SUBSCRIPTION' },
  });
  expect(bare.status).toBe(201);
  expect(bare.body).toMatchObject({ description: '', thumbnailUrl: null, accessType: 'SUBSCRIPTION' });
  const third = await createCourse(client, merchantId);
  await publishCourse(client, third.id);

  const page1 = await client.call('GET', `/courses?merchantId=${merchantId}&limit=2`);
  expect(page1.status).toBe(200);
  expect(page1.body.pagination).toEqual({ total: 3, limit: 2, offset: 0, hasMore: true });
  expect(page1.body.data.map((c: { id: string }) => c.id)).toEqual([third.id, bare.body.id]);
  const page2 = await client.call('GET', `/courses?limit=2&offset=2`); // merchantId defaults to the owned merchant
  expect(page2.body.pagination).toEqual({ total: 3, limit: 2, offset: 2, hasMore: false });
  expect(page2.body.data.map((c: { id: string }) => c.id)).toEqual([res.body.id]);
  const published = await client.call('GET', `/courses?status=PUBLISHED`);
  expect(published.body.data.map((c: { id: string }) => c.id)).toEqual([third.id]);
  expect(published.body.data[0].status).toBe('PUBLISHED');
  const badQuery = await client.call('GET', `/courses?status=LIVE&limit=0&offset=-1&extra=1`);
  expect(badQuery.status).toBe(400);
  expect(badQuery.body.error.code).toBe('VALIDATION_ERROR');
  expect(fieldsOf(badQuery)).toEqual(['extra', 'limit', 'offset', 'status']);
});

it('refuses bad course input with 400 VALIDATION_ERROR naming each field, and creates nothing', async () => {
  const { client, merchantId } = await owner();
  const bad = await client.call('POST', '/courses', {
    body: {
      merchantId: 'nope',
      title: '   ',
      description: 'x'.repeat(5_001),
      thumbnailUrl: 'ftp://example.com/a.png',
      accessType: 'FOREVER',
      price: 10,
    },
  });
  expect(bad.status).toBe(400);
  expect(bad.body.error.code).toBe('VALIDATION_ERROR');
  expect(fieldsOf(bad)).toEqual(['accessType', 'description', 'merchantId', 'price', 'thumbnailUrl', 'title']);
  for (const body of [
    { merchantId, title: 'x'.repeat(201), accessType: 'LIFETIME' },
    { merchantId, title: 'Curso\u0000', accessType: 'LIFETIME' },
    { merchantId, title: 'Curso', description: 'bell\u0007', accessType: 'LIFETIME' },
    { merchantId, title: 'Curso' },
    { merchantId, title: 'Curso', accessType: 'LIFETIME', thumbnailUrl: 'javascript:alert(1)' },
    'not json object',
  ]) {
    const res = await client.call('POST', '/courses', { body });
    expect([res.status, res.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
  }
  expect(await count('courses', 'merchant_id = :m', { m: merchantId })).toBe(0);
  const badId = await client.call('GET', '/courses/not-a-uuid');
  expect([badId.status, badId.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
});

it('PATCH changes only the fields sent (null clears the thumbnail); bad input → 400 and nothing changes', async () => {
  const { client, merchantId } = await owner();
  const course = await createCourse(client, merchantId, { thumbnailUrl: 'http://img.example.com/t.jpg' });
  const patched = await client.call('PATCH', `/courses/${course.id}`, {
    body: { title: 'Novo título', thumbnailUrl: null },
  });
  expect(patched.status).toBe(200);
  expect(patched.body).toMatchObject({
    id: course.id,
    title: 'Novo título',
    thumbnailUrl: null,
    description: course.description,
    accessType: 'LIFETIME',
    status: 'DRAFT',
  });
  expect(patched.body.updatedAt > course.updatedAt).toBe(true);
  const empty = await client.call('PATCH', `/courses/${course.id}`, { body: {} });
  expect(empty.status).toBe(200);
  expect(empty.body).toEqual(patched.body);
  const bad = await client.call('PATCH', `/courses/${course.id}`, {
    body: { title: '', accessType: 'X', status: 'PUBLISHED', merchantId },
  });
  expect(bad.status).toBe(400);
  expect(fieldsOf(bad)).toEqual(['accessType', 'status,merchantId', 'title']);
  expect((await client.call('GET', `/courses/${course.id}`)).body).toEqual(patched.body);
});

it('transitions: DRAFT → PUBLISHED → ARCHIVED, repeats answer unchanged, ARCHIVED cannot be published and is read-only', async () => {
  const { client, merchantId } = await owner();
  const course = await createCourse(client, merchantId);
  const [content] = await createCourseContent(client, course.id, [{ title: 'M1', lessons: [{ title: 'A1' }] }]);
  const price = await createPrice(client, course.id, { amountCents: 1_000 });
  const published = await publishCourse(client, course.id);
  expect(published.status).toBe('PUBLISHED');
  const again = await publishCourse(client, course.id);
  expect(again).toEqual(published);
  const archived = await archiveCourse(client, course.id);
  expect(archived.status).toBe('ARCHIVED');
  expect(await archiveCourse(client, course.id)).toEqual(archived);
  const [[row]] = (await stack.sequelize.query(`SELECT published_at, archived_at FROM courses WHERE id = :id`, {
    replacements: { id: course.id },
  })) as [{ published_at: Date; archived_at: Date }[], unknown];
  expect(row.published_at).toBeTruthy();
  expect(row.archived_at).toBeTruthy();

  const republish = await client.call('POST', `/courses/${course.id}/publish`);
  expect(republish.status).toBe(409);
  expect(republish.body.error).toMatchObject({
    code: 'INVALID_COURSE_TRANSITION',
    details: { status: 'ARCHIVED', requested: 'PUBLISHED' },
  });
  const writes: [string, string, unknown][] = [
    ['PATCH', `/courses/${course.id}`, { title: 'Outro' }],
    ['POST', `/courses/${course.id}/prices`, { amountCents: 500, type: 'ONE_TIME' }],
    ['PATCH', `/courses/${course.id}/prices/${price.id}`, { active: false }],
    ['POST', `/courses/${course.id}/modules`, { title: 'M2', order: 1 }],
    ['PATCH', `/courses/${course.id}/modules/${content.moduleId}`, { title: 'M1b' }],
    ['POST', `/courses/${course.id}/modules/${content.moduleId}/lessons`, { title: 'A2', order: 1 }],
    ['PATCH', `/courses/${course.id}/lessons/${content.lessonIds[0]}`, { title: 'A1b' }],
  ];
  for (const [method, path, body] of writes) {
    const res = await client.call(method, path, { body });
    expect([method, path, res.status, res.body.error?.code]).toEqual([method, path, 409, 'COURSE_ARCHIVED']);
  }
  // Reads still work and show nothing changed.
  expect((await client.call('GET', `/courses/${course.id}`)).body).toEqual(archived);
  expect((await client.call('GET', `/courses/${course.id}/prices`)).body.data).toEqual([price]);
  expect(await count('course_modules', 'course_id = :c', { c: course.id })).toBe(1);
  expect(await count('course_lessons', 'course_id = :c', { c: course.id })).toBe(1);

  // A DRAFT course may be archived directly.
  const draft = await createCourse(client, merchantId);
  expect((await archiveCourse(client, draft.id)).status).toBe('ARCHIVED');
});

it('prices: created (active by default, any type stored; SUBSCRIPTION with interval and retryPolicy), listed, changed; bad input → 400; a price of another course → 404', async () => {
  const { client, merchantId } = await owner();
  const { course, price } = await createPublishedCourseWithPrice(client, merchantId, { amountCents: 19_900 });
  expect(Object.keys(price).sort()).toEqual([
    'active',
    'amountCents',
    'courseId',
    'id',
    'interval',
    'retryPolicy',
    'type',
  ]);
  expect(price).toMatchObject({
    courseId: course.id,
    amountCents: 19_900,
    type: 'ONE_TIME',
    active: true,
    interval: null,
    retryPolicy: null,
  });
  // A SUBSCRIPTION price: monthly with retries unless told (migration 0045's CHECK needs both).
  const sub = await client.call('POST', `/courses/${course.id}/prices`, {
    body: { amountCents: 2_990, type: 'SUBSCRIPTION', active: false },
  });
  expect(sub.status).toBe(201);
  expect(sub.body).toMatchObject({
    type: 'SUBSCRIPTION',
    active: false,
    interval: 'MONTHLY',
    retryPolicy: 'PERMITE_3R_7D',
  });
  const weekly = await client.call('POST', `/courses/${course.id}/prices`, {
    body: { amountCents: 990, type: 'SUBSCRIPTION', interval: 'WEEKLY', retryPolicy: 'NAO_PERMITE' },
  });
  expect(weekly.status).toBe(201);
  expect(weekly.body).toMatchObject({ interval: 'WEEKLY', retryPolicy: 'NAO_PERMITE' });
  const [[weeklyRow]] = (await stack.sequelize.query(
    `SELECT interval, retry_policy FROM course_prices WHERE id = :id`,
    { replacements: { id: weekly.body.id } },
  )) as [{ interval: string; retry_policy: string }[], unknown];
  expect(weeklyRow).toEqual({ interval: 'WEEKLY', retry_policy: 'NAO_PERMITE' });
  const [[row]] = (await stack.sequelize.query(`SELECT merchant_id, amount_cents FROM course_prices WHERE id = :id`, {
    replacements: { id: price.id },
  })) as [{ merchant_id: string; amount_cents: string }[], unknown];
  expect(row).toEqual({ merchant_id: merchantId, amount_cents: '19900' });

  const list = await client.call('GET', `/courses/${course.id}/prices`);
  expect(list.status).toBe(200);
  expect(list.body).toEqual({ data: [price, sub.body, weekly.body] });

  const changed = await client.call('PATCH', `/courses/${course.id}/prices/${price.id}`, {
    body: { amountCents: 24_900, active: false },
  });
  expect(changed.status).toBe(200);
  expect(changed.body).toEqual({ ...price, amountCents: 24_900, active: false });

  for (const body of [
    { amountCents: 0, type: 'ONE_TIME' },
    { amountCents: 10.5, type: 'ONE_TIME' },
    { amountCents: '100', type: 'ONE_TIME' },
    { amountCents: 1_000_000_001, type: 'ONE_TIME' },
    { amountCents: 100, type: 'WEEKLY' },
    { amountCents: 100, type: 'ONE_TIME', active: 'yes' },
    { amountCents: 100, type: 'ONE_TIME', currency: 'BRL' },
    { amountCents: 100, type: 'ONE_TIME', interval: 'MONTHLY' },
    { amountCents: 100, type: 'MULTIPLE_PAYMENTS', retryPolicy: 'NAO_PERMITE' },
    { amountCents: 100, type: 'SUBSCRIPTION', interval: 'DAILY' },
    { amountCents: 100, type: 'SUBSCRIPTION', retryPolicy: 'PERMITE_5R' },
  ]) {
    const res = await client.call('POST', `/courses/${course.id}/prices`, { body });
    expect([JSON.stringify(body), res.status, res.body.error.code]).toEqual([
      JSON.stringify(body),
      400,
      'VALIDATION_ERROR',
    ]);
  }
  const badPatch = await client.call('PATCH', `/courses/${course.id}/prices/${price.id}`, {
    body: { amountCents: -1, type: 'SUBSCRIPTION' },
  });
  expect(badPatch.status).toBe(400);
  expect(fieldsOf(badPatch)).toEqual(['amountCents', 'type']);
  expect(await count('course_prices', 'course_id = :c', { c: course.id })).toBe(3);
  expect((await client.call('GET', `/courses/${course.id}/prices`)).body.data[0]).toEqual(changed.body);

  // The price exists, but under another course: 404 through this one.
  const other = await createCourse(client, merchantId);
  const wrong = await client.call('PATCH', `/courses/${other.id}/prices/${price.id}`, { body: { active: true } });
  expect([wrong.status, wrong.body.error.code]).toEqual([404, 'PRICE_NOT_FOUND']);
  const missing = await client.call('PATCH', `/courses/${course.id}/prices/${crypto.randomUUID()}`, {
    body: { active: true },
  });
  expect([missing.status, missing.body.error.code]).toEqual([404, 'PRICE_NOT_FOUND']);
});

it('modules and lessons: created in any order, read in order with their lessons in order, changed; bad input → 400; wrong course → 404', async () => {
  const { client, merchantId } = await owner();
  const course = await createCourse(client, merchantId);
  const m2 = await client.call('POST', `/courses/${course.id}/modules`, { body: { title: 'Avançado', order: 2 } });
  const m1 = await client.call('POST', `/courses/${course.id}/modules`, { body: { title: 'Básico', order: 1 } });
  expect(m1.status).toBe(201);
  expect(Object.keys(m1.body).sort()).toEqual(['courseId', 'createdAt', 'id', 'order', 'title', 'updatedAt']);
  expect(m1.body).toMatchObject({ courseId: course.id, title: 'Básico', order: 1 });
  const l2 = await client.call('POST', `/courses/${course.id}/modules/${m1.body.id}/lessons`, {
    body: { title: 'Cobrança', order: 5, contentUrl: 'https://videos.example.com/2' },
  });
  const l1 = await client.call('POST', `/courses/${course.id}/modules/${m1.body.id}/lessons`, {
    body: { title: 'O que é Pix', order: 0 },
  });
  expect(l1.status).toBe(201);
  expect(Object.keys(l1.body).sort()).toEqual([
    'contentUrl',
    'courseId',
    'createdAt',
    'id',
    'moduleId',
    'order',
    'title',
    'updatedAt',
  ]);
  expect(l1.body).toMatchObject({
    courseId: course.id,
    moduleId: m1.body.id,
    title: 'O que é Pix',
    order: 0,
    contentUrl: null,
  });
  const l3 = await client.call('POST', `/courses/${course.id}/modules/${m2.body.id}/lessons`, {
    body: { title: 'Split', order: 0 },
  });

  const modules = await client.call('GET', `/courses/${course.id}/modules`);
  expect(modules.status).toBe(200);
  expect(modules.body).toEqual({
    data: [
      { ...m1.body, lessons: [l1.body, l2.body] },
      { ...m2.body, lessons: [l3.body] },
    ],
  });

  const moved = await client.call('PATCH', `/courses/${course.id}/modules/${m2.body.id}`, {
    body: { order: 0, title: 'Primeiro' },
  });
  expect(moved.status).toBe(200);
  expect(moved.body).toMatchObject({ id: m2.body.id, order: 0, title: 'Primeiro' });
  const lesson = await client.call('PATCH', `/courses/${course.id}/lessons/${l2.body.id}`, {
    body: { order: 0, contentUrl: null },
  });
  expect(lesson.status).toBe(200);
  expect(lesson.body).toMatchObject({ id: l2.body.id, order: 0, contentUrl: null, title: 'Cobrança' });
  const reordered = await client.call('GET', `/courses/${course.id}/modules`);
  expect(reordered.body.data.map((m: { id: string }) => m.id)).toEqual([m2.body.id, m1.body.id]);
  // Equal orders read in creation order.
  expect(reordered.body.data[1].lessons.map((l: { id: string }) => l.id)).toEqual([l2.body.id, l1.body.id]);

  for (const [method, path, body] of [
    ['POST', `/courses/${course.id}/modules`, { title: 'X', order: -1 }],
    ['POST', `/courses/${course.id}/modules`, { title: '', order: 0 }],
    ['POST', `/courses/${course.id}/modules`, { title: 'X', order: 1.5 }],
    ['POST', `/courses/${course.id}/modules`, { title: 'X' }],
    ['PATCH', `/courses/${course.id}/modules/${m1.body.id}`, { order: 'first' }],
    [
      'POST',
      `/courses/${course.id}/modules/${m1.body.id}/lessons`,
      { title: 'X', order: 0, contentUrl: 'file:///etc/passwd' },
    ],
    ['POST', `/courses/${course.id}/modules/${m1.body.id}/lessons`, { title: 'X', order: 2_000_000 }],
    ['PATCH', `/courses/${course.id}/lessons/${l1.body.id}`, { moduleId: m2.body.id }],
    ['PATCH', `/courses/${course.id}/lessons/not-a-uuid`, { title: 'X' }],
  ] as [string, string, unknown][]) {
    const res = await client.call(method, path, { body });
    expect([method, path, JSON.stringify(body), res.status, res.body.error.code]).toEqual([
      method,
      path,
      JSON.stringify(body),
      400,
      'VALIDATION_ERROR',
    ]);
  }
  expect(await count('course_modules', 'course_id = :c', { c: course.id })).toBe(2);
  expect(await count('course_lessons', 'course_id = :c', { c: course.id })).toBe(3);

  // A module or lesson of another course (same merchant) is 404 through this one.
  const other = await createCourse(client, merchantId);
  const notHere = [
    ['PATCH', `/courses/${other.id}/modules/${m1.body.id}`, { title: 'X' }, 'MODULE_NOT_FOUND'],
    ['POST', `/courses/${other.id}/modules/${m1.body.id}/lessons`, { title: 'X', order: 0 }, 'MODULE_NOT_FOUND'],
    ['PATCH', `/courses/${other.id}/lessons/${l1.body.id}`, { title: 'X' }, 'LESSON_NOT_FOUND'],
    ['PATCH', `/courses/${course.id}/modules/${crypto.randomUUID()}`, { title: 'X' }, 'MODULE_NOT_FOUND'],
  ] as [string, string, unknown, string][];
  for (const [method, path, body, code] of notHere) {
    const res = await client.call(method, path, { body });
    expect([path, res.status, res.body.error.code]).toEqual([path, 404, code]);
  }
  expect(await count('course_lessons', 'course_id = :c', { c: other.id })).toBe(0);
});

it('roles: a viewer reads but cannot write (403); finance writes; another merchant’s owner gets 404 everywhere; no token → 401', async () => {
  const { client, merchantId } = await owner();
  const { course, price } = await createPublishedCourseWithPrice(client, merchantId, { amountCents: 5_000 });
  const [content] = await createCourseContent(client, course.id, [
    { title: 'M', lessons: [{ title: 'L', contentUrl: 'https://v.example.com/1' }] },
  ]);

  const viewer = await member(merchantId, 'viewer');
  for (const path of [
    `/courses/${course.id}`,
    `/courses/${course.id}/prices`,
    `/courses/${course.id}/modules`,
    `/courses?merchantId=${merchantId}`,
  ]) {
    expect([path, (await viewer.call('GET', path)).status]).toEqual([path, 200]);
  }
  const writes: [string, string, unknown][] = [
    ['POST', '/courses', { merchantId, title: 'Viewer course', accessType: 'LIFETIME' }],
    ['PATCH', `/courses/${course.id}`, { title: 'X' }],
    ['POST', `/courses/${course.id}/publish`, undefined],
    ['POST', `/courses/${course.id}/archive`, undefined],
    ['POST', `/courses/${course.id}/prices`, { amountCents: 100, type: 'ONE_TIME' }],
    ['PATCH', `/courses/${course.id}/prices/${price.id}`, { active: false }],
    ['POST', `/courses/${course.id}/modules`, { title: 'X', order: 0 }],
    ['PATCH', `/courses/${course.id}/modules/${content.moduleId}`, { title: 'X' }],
    ['POST', `/courses/${course.id}/modules/${content.moduleId}/lessons`, { title: 'X', order: 0 }],
    ['PATCH', `/courses/${course.id}/lessons/${content.lessonIds[0]}`, { title: 'X' }],
  ];
  for (const [method, path, body] of writes) {
    const res = await viewer.call(method, path, { body });
    expect([method, path, res.status, res.body.error?.code]).toEqual([method, path, 403, 'INSUFFICIENT_ROLE']);
  }

  const finance = await member(merchantId, 'finance');
  const byFinance = await finance.call('PATCH', `/courses/${course.id}`, {
    body: { description: 'Pela equipe financeira' },
  });
  expect(byFinance.status).toBe(200);
  expect(
    (await finance.call('POST', '/courses', { body: { merchantId, title: 'Do financeiro', accessType: 'LIFETIME' } }))
      .status,
  ).toBe(201);

  // Another merchant's owner: every course route is 404 in the envelope, never 403, whatever the body.
  const stranger = (await owner()).client;
  const reads: [string, string, unknown][] = [
    ['GET', `/courses/${course.id}`, undefined],
    ['GET', `/courses/${course.id}/prices`, undefined],
    ['GET', `/courses/${course.id}/modules`, undefined],
  ];
  for (const [method, path, body] of [
    ...reads,
    ...writes.slice(1),
    ['PATCH', `/courses/${course.id}`, { title: '' }] as [string, string, unknown],
  ]) {
    const res = await stranger.call(method, path, { body });
    expect([method, path, res.status, Object.keys(res.body), res.body.error?.code]).toEqual([
      method,
      path,
      404,
      ['error'],
      'COURSE_NOT_FOUND',
    ]);
  }
  const otherList = await stranger.call('GET', `/courses?merchantId=${merchantId}`);
  expect([otherList.status, otherList.body.error.code]).toEqual([404, 'MERCHANT_NOT_FOUND']);
  const otherCreate = await stranger.call('POST', '/courses', {
    body: { merchantId, title: 'Intruso', accessType: 'LIFETIME' },
  });
  expect([otherCreate.status, otherCreate.body.error.code]).toEqual([404, 'MERCHANT_NOT_FOUND']);
  expect((await stranger.call('GET', '/courses')).body.data).toEqual([]);

  const anonymous = await new AppClient(stack.apiUrl).call('GET', `/courses/${course.id}`);
  expect(anonymous.status).toBe(401);
  expect(anonymous.body.error.code).toBe('AUTHENTICATION_REQUIRED');

  // Nothing the viewer or the stranger sent changed the course.
  const after = await client.call('GET', `/courses/${course.id}`);
  expect(after.body).toMatchObject({ title: course.title, status: 'PUBLISHED', description: 'Pela equipe financeira' });
  expect((await client.call('GET', `/courses/${course.id}/prices`)).body.data).toEqual([price]);
});
