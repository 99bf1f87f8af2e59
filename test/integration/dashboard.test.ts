/**
 * Dashboard routes over HTTP against the real stack: the user's merchant (ensure once, also under
 * concurrency; me), roles (viewer 403, non-member 404), API credentials created through the app
 * API working on a seller route until revoked, the second factor on credential creation, tenant
 * isolation between two users, and the operator CLI's user and credential commands.
 */
// First, as in api/app.ts: the registry extends zod before any route schema is built.
import { buildOpenApiDocument } from '../../api/openapi/document';
import { DashboardService } from '../../api/dashboard/service';
import {
  createdCredentialView,
  credentialView,
  ensuredMerchantView,
  merchantView,
  revokedCredentialView,
} from '../../api/dashboard/schema';
import { ErrorEnvelope } from '../../api/openapi/registry';
import { issueActionToken } from '../../api/identity/twoFactor/actionTokens';
import { ApiCredential, Merchant, MerchantMember, SecondFactor, User } from '../../db/models';
import { decryptSecret } from '../../core/crypto/secretBox';
import { AppClient, uniqueEmail } from '../support/appClient';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { signedInMerchant, signedInUser } from '../support/signedIn';
import { BUILD_WAIT_MS, builtOperatorCli, type OperatorCli } from '../support/operatorCli';

jest.setTimeout(120_000);

let stack: IntegrationStack;
const CNPJ = '11.222.333/0001-81';
const CPF = '529.982.247-25';

beforeAll(async () => {
  stack = await startIntegrationStack({ inProcessWorker: false });
});

afterAll(async () => {
  await stack?.stop();
});

const signedIn = () => signedInUser(stack);
const withMerchant = () => signedInMerchant(stack, { name: 'Loja da Ana', document: CNPJ });

const seller = (creds: { clientId: string; clientSecret: string }, p: string) =>
  stack.api('GET', p, { headers: { 'x-client-id': creds.clientId, 'x-client-secret': creds.clientSecret } });

describe('merchant', () => {
  it('me answers 404 MERCHANT_NOT_FOUND before ensure; ensure creates once with the user as owner, then answers the same', async () => {
    const { client, email, userId } = await signedIn();
    const before = await client.call('GET', '/dashboard/merchant/me');
    expect(before.status).toBe(404);
    expect(before.body.error.code).toBe('MERCHANT_NOT_FOUND');

    const first = await client.call('POST', '/dashboard/merchant/ensure', {
      body: { name: 'Rifas do Zé', document: CPF, type: 'RIFEIRO' },
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      id: expect.any(String),
      name: 'Rifas do Zé',
      email,
      document: '52998224725',
      type: 'RIFEIRO',
      active: true,
      created: true,
    });
    expect(await MerchantMember.findOne({ where: { userId, merchantId: first.body.id } })).toMatchObject({
      role: 'owner',
    });

    const again = await client.call('POST', '/dashboard/merchant/ensure', {
      body: { name: 'Outro Nome', document: CNPJ, type: 'PRODUCER' },
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first.body, created: false });

    const me = await client.call('GET', '/dashboard/merchant/me');
    expect(me.status).toBe(200);
    const { created: _created, ...merchant } = first.body;
    expect(me.body).toEqual(merchant);
    // /auth/me now names the merchant and the role.
    expect((await client.call('GET', '/auth/me')).body).toMatchObject({ merchantId: first.body.id, roles: ['owner'] });
  });

  it('10 concurrent ensure calls by one user create exactly one merchant', async () => {
    const { client, userId } = await signedIn();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        client.call('POST', '/dashboard/merchant/ensure', { body: { name: 'Loja Corrida', document: CNPJ } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(answers.filter((a) => a.body.created)).toHaveLength(1);
    expect(answers[0].body.type).toBe('PRODUCER');
    expect(await MerchantMember.count({ where: { userId } })).toBe(1);
  });

  it('the service alone, 10 calls at once on one connection pool: one merchant, one owner row', async () => {
    const { userId } = await signedIn();
    const user = (await User.findByPk(userId))!;
    const service = new DashboardService({ sequelize: stack.sequelize, encryptionKey: stack.encryptionKey });
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        service.ensureMerchant(user, { name: 'Loja Paralela', document: CPF, type: 'PRODUCER' }),
      ),
    );
    expect(new Set(answers.map((a) => a.id)).size).toBe(1);
    expect(answers.filter((a) => a.created)).toHaveLength(1);
    expect(await MerchantMember.count({ where: { userId } })).toBe(1);
  });

  it('refuses bad bodies with the fields named, and unauthenticated calls with 401', async () => {
    const { client } = await signedIn();
    const bad = await client.call('POST', '/dashboard/merchant/ensure', {
      body: { name: 'A', document: '529.982.247-26', type: 'SHOP' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    expect(bad.body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual([
      'document',
      'name',
      'type',
    ]);
    expect((await client.call('GET', '/dashboard/merchant/me')).status).toBe(404);
    const anonymous = await client.call('GET', '/dashboard/merchant/me', { bearer: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('AUTHENTICATION_REQUIRED');
    expect((await client.call('POST', '/dashboard/credentials', { bearer: 'nope', body: {} })).body.error.code).toBe(
      'INVALID_ACCESS_TOKEN',
    );
  });
});

describe('API credentials', () => {
  it('an owner creates one (secret once, stored encrypted), it works on a seller route within its scopes, and once revoked it answers 401', async () => {
    const { client, merchantId } = await withMerchant();
    const created = await client.call('POST', '/dashboard/credentials', {
      body: { merchantId, name: 'production', scopes: ['charges:write', 'charges:read'] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      clientId: expect.stringMatching(/^cli_[0-9a-f]{24}$/),
      clientSecret: expect.stringMatching(/^sk_/),
      merchantId,
      name: 'production',
      scopes: ['charges:read', 'charges:write'],
      createdAt: expect.any(String),
    });
    const stored = await ApiCredential.findOne({ where: { clientId: created.body.clientId } });
    expect(stored?.secretCiphertext).not.toContain(created.body.clientSecret);
    expect(decryptSecret(stored!.secretCiphertext, Buffer.from(stack.encryptionKey, 'hex'))).toBe(
      created.body.clientSecret,
    );

    // Authenticated: an unknown charge is 404, not 401; outside its scopes it is 403.
    const read = await seller(created.body, '/sellers/pix/no-such-charge');
    expect(read.status).toBe(404);
    expect(read.body.error.code).toBe('NOT_FOUND');
    expect((await seller(created.body, '/sellers/webhooks')).body.error.code).toBe('INSUFFICIENT_SCOPE');

    const list = await client.call('GET', `/dashboard/credentials?merchantId=${merchantId}`);
    expect(list.status).toBe(200);
    expect(list.body.pagination).toEqual({ total: 1, limit: 20, offset: 0, hasMore: false });
    expect(list.body.data).toEqual([
      {
        clientId: created.body.clientId,
        merchantId,
        name: 'production',
        scopes: ['charges:read', 'charges:write'],
        active: true,
        lastUsedAt: null,
        createdAt: created.body.createdAt,
      },
    ]);
    expect(JSON.stringify(list.body)).not.toContain(created.body.clientSecret);

    const revoked = await client.call('DELETE', `/dashboard/credentials/${created.body.clientId}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ message: 'credential revoked', clientId: created.body.clientId, active: false });
    const refused = await seller(created.body, '/sellers/pix/no-such-charge');
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('INVALID_CREDENTIALS');
    expect((await client.call('DELETE', `/dashboard/credentials/${created.body.clientId}`)).status).toBe(200);
    expect((await client.call('GET', `/dashboard/credentials?merchantId=${merchantId}`)).body.data[0].active).toBe(
      false,
    );
  });

  it('pages with limit and offset, newest first', async () => {
    const { client, merchantId } = await withMerchant();
    for (const name of ['one', 'two', 'three']) {
      expect(
        (await client.call('POST', '/dashboard/credentials', { body: { merchantId, name, scopes: ['payouts:read'] } }))
          .status,
      ).toBe(201);
    }
    const page = await client.call('GET', `/dashboard/credentials?merchantId=${merchantId}&limit=2&offset=0`);
    expect(page.body.pagination).toEqual({ total: 3, limit: 2, offset: 0, hasMore: true });
    expect(page.body.data.map((c: { name: string }) => c.name)).toEqual(['three', 'two']);
    const rest = await client.call('GET', `/dashboard/credentials?merchantId=${merchantId}&limit=2&offset=2`);
    expect(rest.body.pagination).toEqual({ total: 3, limit: 2, offset: 2, hasMore: false });
    expect(rest.body.data.map((c: { name: string }) => c.name)).toEqual(['one']);
    const bad = await client.call('GET', `/dashboard/credentials?merchantId=${merchantId}&limit=0`);
    expect(bad.status).toBe(400);
  });

  it('refuses empty, unknown and repeated scopes, and a missing name', async () => {
    const { client, merchantId } = await withMerchant();
    for (const body of [
      { merchantId, name: 'x', scopes: [] },
      { merchantId, name: 'x', scopes: ['charges:admin'] },
      { merchantId, name: 'x', scopes: ['charges:read', 'charges:read'] },
      { merchantId, scopes: ['charges:read'] },
      { merchantId: 'not-a-uuid', name: 'x', scopes: ['charges:read'] },
    ]) {
      const res = await client.call('POST', '/dashboard/credentials', { body });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect(await ApiCredential.count({ where: { merchantId } })).toBe(0);
  });

  it('a user with a second factor needs an action token for "create-credential", used once', async () => {
    const { client, userId, merchantId } = await withMerchant();
    await SecondFactor.create({ userId, emailEnabledAt: new Date() });
    const body = { merchantId, name: 'with 2fa', scopes: ['charges:read'] };
    const without = await client.call('POST', '/dashboard/credentials', { body });
    expect(without.status).toBe(403);
    expect(without.body.error.code).toBe('SECOND_FACTOR_REQUIRED');
    const wrongAction = await issueActionToken(userId, 'change-password');
    expect(
      (
        await client.call('POST', '/dashboard/credentials', {
          body,
          headers: { 'x-action-token': wrongAction.actionToken },
        })
      ).status,
    ).toBe(403);
    const { actionToken } = await issueActionToken(userId, 'create-credential');
    expect(
      (await client.call('POST', '/dashboard/credentials', { body, headers: { 'x-action-token': actionToken } }))
        .status,
    ).toBe(201);
    expect(
      (await client.call('POST', '/dashboard/credentials', { body, headers: { 'x-action-token': actionToken } }))
        .status,
    ).toBe(403);
    expect(await ApiCredential.count({ where: { merchantId } })).toBe(1);
  });
});

describe('roles and tenant isolation', () => {
  it('a viewer lists but cannot create or revoke (403 INSUFFICIENT_ROLE); an admin can; a non-member gets 404', async () => {
    const owner = await withMerchant();
    const made = await owner.client.call('POST', '/dashboard/credentials', {
      body: { merchantId: owner.merchantId, name: 'owner key', scopes: ['charges:read'] },
    });
    const viewer = await signedIn();
    const admin = await signedIn();
    await MerchantMember.create({ userId: viewer.userId, merchantId: owner.merchantId, role: 'viewer' });
    await MerchantMember.create({ userId: admin.userId, merchantId: owner.merchantId, role: 'admin' });

    const denied = await viewer.client.call('POST', '/dashboard/credentials', {
      body: { merchantId: owner.merchantId, name: 'nope', scopes: ['charges:read'] },
    });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({
      code: 'INSUFFICIENT_ROLE',
      details: { role: 'viewer', allowedRoles: ['owner', 'admin'] },
    });
    expect((await viewer.client.call('DELETE', `/dashboard/credentials/${made.body.clientId}`)).body.error.code).toBe(
      'INSUFFICIENT_ROLE',
    );
    expect(
      (await viewer.client.call('GET', `/dashboard/credentials?merchantId=${owner.merchantId}`)).body.pagination.total,
    ).toBe(1);
    // The viewer's merchant is the one they belong to.
    expect((await viewer.client.call('GET', '/dashboard/merchant/me')).body.id).toBe(owner.merchantId);

    expect(
      (
        await admin.client.call('POST', '/dashboard/credentials', {
          body: { merchantId: owner.merchantId, name: 'admin key', scopes: ['charges:read'] },
        })
      ).status,
    ).toBe(201);

    const stranger = await signedIn();
    const hidden = await stranger.client.call('POST', '/dashboard/credentials', {
      body: { merchantId: owner.merchantId, name: 'mine', scopes: ['charges:read'] },
    });
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe('MERCHANT_NOT_FOUND');
    // Same answer as a merchant that does not exist.
    const none = await stranger.client.call('GET', `/dashboard/credentials?merchantId=${crypto.randomUUID()}`);
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe('MERCHANT_NOT_FOUND');
  });

  it('user A never sees user B’s merchant or credentials', async () => {
    const a = await withMerchant();
    const b = await withMerchant();
    expect(a.merchantId).not.toBe(b.merchantId);
    const bKey = await b.client.call('POST', '/dashboard/credentials', {
      body: { merchantId: b.merchantId, name: 'b key', scopes: ['charges:read'] },
    });
    expect(bKey.status).toBe(201);

    expect((await a.client.call('GET', '/dashboard/merchant/me')).body.id).toBe(a.merchantId);
    expect((await a.client.call('GET', `/dashboard/credentials?merchantId=${b.merchantId}`)).status).toBe(404);
    const revoke = await a.client.call('DELETE', `/dashboard/credentials/${bKey.body.clientId}`);
    expect(revoke.status).toBe(404);
    expect(revoke.body.error.code).toBe('CREDENTIAL_NOT_FOUND');
    expect((await ApiCredential.findOne({ where: { clientId: bKey.body.clientId } }))?.active).toBe(true);
    // An operator-made credential of another merchant, and one that does not exist: the same 404.
    const other = await stack.createMerchant({ name: 'Loja Alheia' });
    expect((await a.client.call('DELETE', `/dashboard/credentials/${other.clientId}`)).body.error.code).toBe(
      'CREDENTIAL_NOT_FOUND',
    );
    expect((await a.client.call('DELETE', '/dashboard/credentials/cli_0123456789abcdef01234567')).body.error.code).toBe(
      'CREDENTIAL_NOT_FOUND',
    );
    const aList = await a.client.call('GET', `/dashboard/credentials?merchantId=${a.merchantId}`);
    expect(aList.body.data).toEqual([]);
  });
});

describe('OpenAPI', () => {
  it('real answers parse with the documented schemas, and each error code is documented for its operation and status', async () => {
    const doc = buildOpenApiDocument();
    const { client, merchantId } = await withMerchant();
    const ok = (schema: { safeParse: (v: unknown) => { error?: unknown } }, body: unknown) =>
      expect(schema.safeParse(body).error).toBeUndefined();
    ok(
      ensuredMerchantView,
      (await client.call('POST', '/dashboard/merchant/ensure', { body: { name: 'Loja Doc', document: CPF } })).body,
    );
    ok(merchantView.strict(), (await client.call('GET', '/dashboard/merchant/me')).body);
    const made = await client.call('POST', '/dashboard/credentials', {
      body: { merchantId, name: 'doc', scopes: ['charges:read'] },
    });
    ok(createdCredentialView.strict(), made.body);
    ok(
      credentialView.strict(),
      (await client.call('GET', `/dashboard/credentials?merchantId=${merchantId}`)).body.data[0],
    );
    ok(
      revokedCredentialView.strict(),
      (await client.call('DELETE', `/dashboard/credentials/${made.body.clientId}`)).body,
    );

    const stranger = await signedIn();
    const cases: Array<[AppClient, string, string, string, unknown?, string?]> = [
      [stranger.client, 'GET', '/dashboard/merchant/me', '/dashboard/merchant/me'],
      [stranger.client, 'POST', '/dashboard/merchant/ensure', '/dashboard/merchant/ensure', { name: 'x' }],
      [
        stranger.client,
        'POST',
        '/dashboard/credentials',
        '/dashboard/credentials',
        { merchantId, name: 'n', scopes: ['charges:read'] },
      ],
      [stranger.client, 'GET', `/dashboard/credentials?merchantId=${merchantId}`, '/dashboard/credentials'],
      [stranger.client, 'GET', '/dashboard/credentials', '/dashboard/credentials'],
      [stranger.client, 'DELETE', `/dashboard/credentials/${made.body.clientId}`, '/dashboard/credentials/{clientId}'],
      [stranger.client, 'DELETE', '/dashboard/credentials/not-a-client-id', '/dashboard/credentials/{clientId}'],
      [stranger.client, 'GET', '/dashboard/merchant/me', '/dashboard/merchant/me', undefined, 'expired.token.here'],
    ];
    for (const [who, method, url, docPath, body, bearer] of cases) {
      const res = await who.call(method, url, { body, ...(bearer ? { bearer } : {}) });
      expect(ErrorEnvelope.safeParse(res.body).error).toBeUndefined();
      const op = (doc.paths as Record<string, Record<string, any>>)[docPath][method.toLowerCase()];
      const codes = Object.keys(op.responses[String(res.status)]?.content?.['application/json']?.examples ?? {});
      expect({
        at: `${method} ${url} ${res.status} ${res.body.error.code}`,
        documented: codes.includes(res.body.error.code),
      }).toEqual({
        at: `${method} ${url} ${res.status} ${res.body.error.code}`,
        documented: true,
      });
    }
  });
});

describe('operator CLI', () => {
  let cli: OperatorCli;
  // The built CLI (test/support/operatorCli.ts), once the runner's production build is ready:
  // waited for here, not in the test's budget.
  beforeAll(async () => {
    cli = await builtOperatorCli();
  }, BUILD_WAIT_MS);
  // The stack's own database (each stack gets a fresh one), not the suite's.
  const gateway = (args: string[], env: Record<string, string> = {}) =>
    cli.run(args, {
      DATABASE_URL: stack.workerEnv.DATABASE_URL,
      CREDENTIALS_ENCRYPTION_KEY: stack.encryptionKey,
      ...env,
    });

  // Eleven CLI processes, each connecting to PostgreSQL: a budget for a host several times slower.
  it('creates a user who can sign in, adds them to a merchant, and issues a credential; never prints the password', async () => {
    const email = uniqueEmail('Op');
    const password = 'operator chosen password';
    const made = await gateway(['user', 'create', '--email', email, '--name', 'Operadora', '--json'], {
      GATEWAY_USER_PASSWORD: password,
    });
    expect(made.stderr).toBe('');
    expect(made.status).toBe(0);
    expect(made.stdout + made.stderr).not.toContain(password);
    const { id } = JSON.parse(made.stdout) as { id: string };
    expect((await User.findByPk(id))?.passwordHash).toMatch(/^\$argon2id\$/);
    const dup = await gateway([
      'user',
      'create',
      '--email',
      email.toUpperCase(),
      '--name',
      'Outra',
      '--password',
      password,
    ]);
    expect(dup.status).toBe(1);
    expect(dup.stderr).toMatch(/already exists/);
    expect(dup.stdout + dup.stderr).not.toContain(password);
    expect((await gateway(['user', 'create', '--email', uniqueEmail(), '--name', 'Sem Senha'])).stderr).toMatch(
      /GATEWAY_USER_PASSWORD/,
    );

    const merchant = await stack.createMerchant({ name: 'Loja CLI' });
    expect(
      (
        await gateway([
          'user',
          'add-to-merchant',
          '--email',
          email,
          '--merchant',
          merchant.merchantId,
          '--role',
          'boss',
        ])
      ).stderr,
    ).toMatch(/role must be one of/);
    const added = await gateway([
      'user',
      'add-to-merchant',
      '--email',
      email,
      '--merchant',
      merchant.merchantId,
      '--role',
      'finance',
    ]);
    expect(added.status).toBe(0);
    expect(await MerchantMember.findOne({ where: { userId: id, merchantId: merchant.merchantId } })).toMatchObject({
      role: 'finance',
    });

    const client = new AppClient(stack.apiUrl);
    expect((await client.login(email, password)).status).toBe(200);
    expect((await client.call('GET', '/dashboard/merchant/me')).body.id).toBe(merchant.merchantId);
    // finance may list, not create.
    expect(
      (
        await client.call('POST', '/dashboard/credentials', {
          body: { merchantId: merchant.merchantId, name: 'x', scopes: ['charges:read'] },
        })
      ).status,
    ).toBe(403);

    const bad = await gateway([
      'credential',
      'create',
      '--merchant',
      merchant.merchantId,
      '--scopes',
      'charges:read,charges:admin',
    ]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/unknown scope charges:admin/);
    const issued = await gateway([
      'credential',
      'create',
      '--merchant',
      merchant.merchantId,
      '--scopes',
      'charges:read',
      '--name',
      'cli key',
      '--json',
    ]);
    expect(issued.status).toBe(0);
    const cred = JSON.parse(issued.stdout) as {
      clientId: string;
      clientSecret: string;
      scopes: string[];
      name: string;
    };
    expect(cred).toMatchObject({ scopes: ['charges:read'], name: 'cli key' });
    expect((await seller(cred, '/sellers/pix/no-such-charge')).status).toBe(404);
    expect(
      (await gateway(['credential', 'create', '--merchant', crypto.randomUUID(), '--scopes', 'charges:read'])).stderr,
    ).toMatch(/no merchant with id/);
    expect((await Merchant.findByPk(merchant.merchantId))?.active).toBe(true);

    // Platform operators are made only here, never through the API.
    expect((await gateway(['user', 'operator', '--email', email.toUpperCase()])).status).toBe(0);
    expect((await User.findByPk(id))?.platformOperator).toBe(true);
    expect((await gateway(['user', 'operator', '--email', email, '--revoke'])).stdout).toMatch(
      /no longer a platform operator/,
    );
    expect((await User.findByPk(id))?.platformOperator).toBe(false);
    expect((await gateway(['user', 'operator', '--email', uniqueEmail()])).stderr).toMatch(/no user with e-mail/);
  }, 300_000);
});
