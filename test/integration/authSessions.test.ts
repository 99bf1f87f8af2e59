/**
 * Accounts and sessions of the application API over HTTP against the real stack: register,
 * login, bearer access, refresh rotation and reuse detection, CSRF, logout, password change,
 * throttling, expired tokens. Tokens are checked with `jose` (a library we did not write).
 */
import { SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import crypto from 'node:crypto';
import QRCode from 'qrcode';
import { writeLedgerEntry } from '../../activities/ledger/ledgerWriter';
import { chargePaidEntry } from '../../core/ledger/postings';
import { assertLedgerInvariant } from '../support/ledger';
import { User, UserSession } from '../../db/models';
import { derivedJwtSecret } from '../../api/identity/auth/accessTokens';
import { AppClient, tallyAnswers, uniqueEmail } from '../support/appClient';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { PASSWORD, signedInUser } from '../support/signedIn';

jest.setTimeout(120_000);

let stack: IntegrationStack;

beforeAll(async () => {
  stack = await startIntegrationStack({ inProcessWorker: false });
});

afterAll(async () => {
  await stack?.stop();
});

const signedInClient = () => signedInUser(stack);

describe('register', () => {
  it('creates the user and answers the User object without the password', async () => {
    const client = new AppClient(stack.apiUrl);
    const email = uniqueEmail('Ana');
    const res = await client.register({
      email,
      password: PASSWORD,
      name: 'Ana Lima',
      phone: '+55 11 99999-0000',
      document: '529.982.247-25',
      documentType: 'CPF',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      email: email.toLowerCase(),
      name: 'Ana Lima',
      roles: [],
      merchantId: null,
      kycStatus: null,
      document: '52998224725',
      documentType: 'CPF',
    });
    expect(JSON.stringify(res.body)).not.toMatch(/password|argon2/i);
    const stored = await User.findByPk(res.body.id);
    expect(stored?.passwordHash).toMatch(/^\$argon2id\$/);
  });

  it('refuses a taken e-mail (any case), short passwords and names, and wrong check digits; creates nothing', async () => {
    const client = new AppClient(stack.apiUrl);
    const email = uniqueEmail();
    expect((await client.register({ email, password: PASSWORD })).status).toBe(201);
    const taken = await client.register({ email: email.toUpperCase(), password: PASSWORD });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('EMAIL_ALREADY_REGISTERED');
    const bad = await client.register({
      email: 'not-an-email',
      password: 'short',
      name: 'A',
      document: '529.982.247-26',
      documentType: 'CPF',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    expect(bad.body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual([
      'document',
      'email',
      'name',
      'password',
    ]);
    const cnpj = await client.register({
      email: uniqueEmail(),
      password: PASSWORD,
      document: '11.222.333/0001-81',
      documentType: 'CNPJ',
    });
    expect(cnpj.status).toBe(201);
    const typeless = await client.register({
      email: uniqueEmail(),
      password: PASSWORD,
      document: '11.222.333/0001-81',
    });
    expect(typeless.status).toBe(400);
  });
});

describe('login and bearer access', () => {
  it('answers a 15-minute JWT with a key id, a 7-day refresh token and an httpOnly SameSite cookie', async () => {
    const client = new AppClient(stack.apiUrl);
    const email = uniqueEmail();
    await client.register({ email, password: PASSWORD });
    const res = await client.login(email, PASSWORD);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      message: expect.any(String),
      accessToken: expect.any(String),
      refreshToken: expect.stringMatching(/^rt_/),
      expiresIn: 900,
    });
    const claims = decodeJwt(res.body.accessToken);
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(900);
    expect(decodeProtectedHeader(res.body.accessToken)).toMatchObject({ alg: 'HS256', kid: expect.any(String) });
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('refresh_token='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/auth/);
    expect(cookie).toMatch(/Max-Age=604800/);
    expect(cookie).toContain(`refresh_token=${res.body.refreshToken}`);
    const me = await client.call('GET', '/auth/me');
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(email.toLowerCase());
  });

  it('answers an unknown e-mail and a wrong password the same way', async () => {
    const { email } = await signedInClient();
    const client = new AppClient(stack.apiUrl);
    const wrong = await client.login(email, 'wrong password!');
    const unknown = await client.login(uniqueEmail(), 'wrong password!');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect({ ...wrong.body.error, traceId: null }).toEqual({ ...unknown.body.error, traceId: null });
  });

  it('refuses a missing, malformed, forged or expired access token with 401', async () => {
    const { client } = await signedInClient();
    const none = await client.call('GET', '/auth/me', { bearer: null });
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('AUTHENTICATION_REQUIRED');
    const garbage = await client.call('GET', '/auth/me', { bearer: 'not.a.jwt' });
    expect(garbage.body.error.code).toBe('INVALID_ACCESS_TOKEN');
    const claims = decodeJwt(client.accessToken!);
    const header = decodeProtectedHeader(client.accessToken!);
    const secret = new TextEncoder().encode(derivedJwtSecret(stack.encryptionKey));
    const sign = (exp: number, key = secret) =>
      new SignJWT({ sid: claims.sid, typ: 'access' })
        .setProtectedHeader({ alg: 'HS256', kid: header.kid! })
        .setSubject(claims.sub!)
        .setIssuer('pix-gateway')
        .setAudience('pix-gateway-app')
        .setIssuedAt(exp - 900)
        .setExpirationTime(exp)
        .sign(key);
    const now = Math.floor(Date.now() / 1000);
    const valid = await client.call('GET', '/auth/me', { bearer: await sign(now + 60) });
    expect(valid.status).toBe(200); // the same key and claims are accepted: the refusals below are for what changed
    const expired = await client.call('GET', '/auth/me', { bearer: await sign(now - 1) });
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe('INVALID_ACCESS_TOKEN');
    const forged = await client.call('GET', '/auth/me', {
      bearer: await sign(now + 60, new TextEncoder().encode('x'.repeat(64))),
    });
    expect(forged.status).toBe(401);
  });
});

describe('refresh', () => {
  it('rotates the refresh token on every use and needs the CSRF token', async () => {
    const { client } = await signedInClient();
    const first = client.cookies.get('refresh_token');
    const noCsrf = await client.call('POST', '/auth/refresh', { bearer: null });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.error.code).toBe('CSRF_TOKEN_INVALID');
    const token = await client.csrf();
    const forgedHeader = await client.call('POST', '/auth/refresh', {
      bearer: null,
      headers: { 'x-csrf-token': `${token}x` },
    });
    expect(forgedHeader.status).toBe(403);
    const res = await client.refresh();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ accessToken: expect.any(String), expiresIn: 900 });
    const second = client.cookies.get('refresh_token');
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    expect((await client.call('GET', '/auth/me')).status).toBe(200);
  });

  it('a reused refresh token ends the whole family: the thief and the victim both lose the session', async () => {
    const { client } = await signedInClient();
    const stolen = client.cookies.get('refresh_token')!;
    expect((await client.refresh()).status).toBe(200); // the victim refreshes: the stolen token is now used
    const thief = new AppClient(stack.apiUrl);
    thief.cookies.set('refresh_token', stolen);
    const reuse = await thief.refresh();
    expect(reuse.status).toBe(401);
    expect(reuse.body.error.code).toBe('REFRESH_TOKEN_REUSED');
    // The victim's newer token and access token died with the family.
    const victim = await client.refresh();
    expect(victim.status).toBe(401);
    expect((await client.call('GET', '/auth/me')).status).toBe(401);
  });

  it('answers 401 without the cookie and for an unknown token', async () => {
    const client = new AppClient(stack.apiUrl);
    const missing = await client.refresh();
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('REFRESH_TOKEN_MISSING');
    client.cookies.set('refresh_token', 'rt_unknown');
    const unknown = await client.refresh();
    expect(unknown.body.error.code).toBe('REFRESH_TOKEN_INVALID');
  });
});

describe('logout and password change', () => {
  it('logout by cookie needs CSRF, ends the session at once, and is idempotent', async () => {
    const { client } = await signedInClient();
    const access = client.accessToken;
    const noCsrf = await client.call('POST', '/auth/logout', { bearer: null });
    expect(noCsrf.status).toBe(403);
    const token = await client.csrf();
    const res = await client.call('POST', '/auth/logout', { bearer: null, headers: { 'x-csrf-token': token } });
    expect(res.status).toBe(200);
    expect((await client.call('GET', '/auth/me', { bearer: access })).status).toBe(401);
    expect(client.cookies.has('refresh_token')).toBe(false);
    expect((await client.call('POST', '/auth/logout', { bearer: null })).status).toBe(200);
  });

  it('logout with the bearer token alone needs no CSRF token', async () => {
    const { client } = await signedInClient();
    const res = await client.call('POST', '/auth/logout', { cookies: false });
    expect(res.status).toBe(200);
    expect((await client.call('GET', '/auth/me', { cookies: false })).status).toBe(401);
  });

  it('change-password needs the current password and ends every other session', async () => {
    const { client, email } = await signedInClient();
    const other = new AppClient(stack.apiUrl);
    await other.login(email, PASSWORD);
    const wrong = await client.call('POST', '/auth/change-password', {
      body: { currentPassword: 'not it at all', newPassword: 'a new long password' },
    });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.code).toBe('INVALID_PASSWORD');
    const ok = await client.call('POST', '/auth/change-password', {
      body: { currentPassword: PASSWORD, newPassword: 'a new long password' },
    });
    expect(ok.status).toBe(200);
    expect((await client.call('GET', '/auth/me')).status).toBe(200);
    expect((await other.call('GET', '/auth/me')).status).toBe(401);
    expect((await other.refresh()).status).toBe(401);
    expect((await new AppClient(stack.apiUrl).login(email, PASSWORD)).status).toBe(401);
    expect((await new AppClient(stack.apiUrl).login(email, 'a new long password')).status).toBe(200);
  });

  it('update-profile changes the given fields only; an empty body is refused', async () => {
    const { client } = await signedInClient();
    const res = await client.call('PUT', '/auth/update-profile', {
      body: { name: 'Bia Souza', phone: '+55 21 98888-7777' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Bia Souza', phone: '+55 21 98888-7777' });
    expect((await client.call('PUT', '/auth/update-profile', { body: {} })).status).toBe(400);
    expect((await client.call('PUT', '/auth/update-profile', { body: { email: 'x@y.com' } })).status).toBe(400);
  });
});

describe('brute force', () => {
  it('locks an account after repeated failures with 429 TOO_MANY_ATTEMPTS and Retry-After, even for the right password', async () => {
    const { email } = await signedInClient();
    const client = new AppClient(stack.apiUrl);
    for (let i = 0; i < 5; i++) expect((await client.login(email, 'wrong password!')).status).toBe(401);
    const locked = await client.login(email, 'wrong password!');
    expect(locked.status).toBe(401); // the 6th failure locks
    const blocked = await client.login(email, PASSWORD);
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe('TOO_MANY_ATTEMPTS');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    // An unknown e-mail is locked the same way (the lock tells nothing about existence).
    const ghost = uniqueEmail();
    for (let i = 0; i < 6; i++) await client.login(ghost, 'wrong password!');
    expect((await client.login(ghost, 'wrong password!')).status).toBe(429);
  });
});

describe('brute force on the password re-checks (change-password, delete-account)', () => {
  it('change-password: 5 wrong current passwords are free, the 6th locks the account: 429 with Retry-After even for the right one, and login is locked too', async () => {
    const { client, email } = await signedInClient();
    const me = await client.call('GET', '/auth/me');
    const hashBefore = (await User.findByPk(me.body.id))!.passwordHash;
    const change = (currentPassword: string) =>
      client.call('POST', '/auth/change-password', { body: { currentPassword, newPassword: 'a new long password' } });
    for (let i = 0; i < 6; i++) {
      const wrong = await change(`wrong password ${i}`);
      expect(wrong.status).toBe(403);
      expect(wrong.body.error.code).toBe('INVALID_PASSWORD');
    }
    const blocked = await change(PASSWORD);
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe('TOO_MANY_ATTEMPTS');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(blocked.body.error.details.retryAfterSeconds).toBe(Number(blocked.headers.get('retry-after')));
    expect((await User.findByPk(me.body.id))!.passwordHash).toBe(hashBefore);
    // The same brake as login (the account: key): guesses here are guesses there.
    expect((await new AppClient(stack.apiUrl).login(email, PASSWORD)).status).toBe(429);
  });

  it('delete-account: the password check is braked the same way; the locked account is not deleted', async () => {
    const { client } = await signedInClient();
    const me = await client.call('GET', '/auth/me');
    for (let i = 0; i < 6; i++)
      expect(
        (await client.call('DELETE', '/auth/delete-account', { body: { password: `wrong password ${i}` } })).status,
      ).toBe(403);
    const blocked = await client.call('DELETE', '/auth/delete-account', { body: { password: PASSWORD } });
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe('TOO_MANY_ATTEMPTS');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await User.findByPk(me.body.id))?.deletedAt).toBeNull();
    expect((await client.call('GET', '/auth/me')).status).toBe(200);
  });

  it('wrong current passwords sent at once get 6 checks (5 free, the one that locks); the rest 429', async () => {
    const { client } = await signedInClient();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        client.call('POST', '/auth/change-password', {
          body: { currentPassword: `wrong password ${i}`, newPassword: 'a new long password' },
        }),
      ),
    );
    expect(tallyAnswers(answers)).toEqual({ '403 INVALID_PASSWORD': 6, '429 TOO_MANY_ATTEMPTS': 4 });
  });

  it('wrong passwords sent at once to POST /auth/login get 6 checks per account (5 free, the one that locks); the rest 429', async () => {
    const { email } = await signedInClient();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => new AppClient(stack.apiUrl).login(email, `wrong password ${i}`)),
    );
    expect(tallyAnswers(answers)).toEqual({ '401 INVALID_LOGIN': 6, '429 TOO_MANY_ATTEMPTS': 4 });
    // Locked: the right password too, until Retry-After.
    expect((await new AppClient(stack.apiUrl).login(email, PASSWORD)).status).toBe(429);
  });

  it('a right password clears the count, as a login does', async () => {
    const { client } = await signedInClient();
    for (let i = 0; i < 5; i++)
      expect(
        (await client.call('DELETE', '/auth/delete-account', { body: { password: `wrong password ${i}` } })).status,
      ).toBe(403);
    const ok = await client.call('POST', '/auth/change-password', {
      body: { currentPassword: PASSWORD, newPassword: 'a new long password' },
    });
    expect(ok.status).toBe(200);
    for (let i = 0; i < 5; i++)
      expect(
        (await client.call('DELETE', '/auth/delete-account', { body: { password: `wrong password ${i}` } })).status,
      ).toBe(403);
  });
});

describe('brute force from one address', () => {
  it('locks an IP that fails across many accounts (30 free failures), without touching other addresses', async () => {
    // Behind a proxy the API trusts, X-Forwarded-For names the client: two "machines" here.
    const proxied = await stack.extraApi({ trustProxy: 1 });
    try {
      const from = (ip: string) => ({ 'x-forwarded-for': ip });
      const attacker = new AppClient(proxied.url);
      const login = (ip: string, email: string, password: string) =>
        attacker.call('POST', '/auth/login', { body: { email, password }, headers: from(ip), bearer: null });
      for (let i = 0; i < 31; i++)
        expect((await login('203.0.113.7', uniqueEmail('spray'), 'wrong password!')).status).toBe(401);
      const blocked = await login('203.0.113.7', uniqueEmail('spray'), 'wrong password!');
      expect(blocked.status).toBe(429);
      expect(blocked.body.error.code).toBe('TOO_MANY_ATTEMPTS');
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      // A real user elsewhere still logs in.
      const { email } = await signedInClient();
      expect((await login('198.51.100.20', email, PASSWORD)).status).toBe(200);
    } finally {
      await proxied.close();
    }
  });
});

describe('avatar, on the real stack', () => {
  it('presign → PUT a real PNG → confirm makes it the avatar of the signed-in user (GET /auth/me), readable at its URL', async () => {
    const { client } = await signedInClient();
    expect(
      (await client.call('POST', '/auth/avatar/presign', { body: { contentType: 'image/png' }, bearer: null })).status,
    ).toBe(401);
    const grant = await client.call('POST', '/auth/avatar/presign', { body: { contentType: 'image/png' } });
    expect(grant.status).toBe(200);
    const png = await QRCode.toBuffer('avatar');
    const put = await fetch(grant.body.uploadUrl, { method: 'PUT', headers: grant.body.headers, body: png });
    expect(put.status).toBeLessThan(300);
    const confirm = await client.call('POST', '/auth/avatar/confirm', { body: { key: grant.body.key } });
    expect(confirm.status).toBe(200);
    const me = await client.call('GET', '/auth/me');
    expect(me.body.avatarUrl).toBe(confirm.body.avatarUrl);
    const served = await fetch(me.body.avatarUrl);
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true);
  });
});

describe('delete-account', () => {
  it('needs the password, erases personal data and ends every session', async () => {
    const { client, email } = await signedInClient();
    const me = await client.call('GET', '/auth/me');
    const noProof = await client.call('DELETE', '/auth/delete-account', { body: {} });
    expect(noProof.status).toBe(400);
    const wrong = await client.call('DELETE', '/auth/delete-account', { body: { password: 'not the password' } });
    expect(wrong.status).toBe(403);
    const res = await client.call('DELETE', '/auth/delete-account', { body: { password: PASSWORD } });
    expect(res.status).toBe(200);
    const row = await User.findByPk(me.body.id);
    expect(row).toMatchObject({ email: null, passwordHash: null, phone: null, document: null });
    expect(row?.deletedAt).toBeInstanceOf(Date);
    expect(await UserSession.count({ where: { userId: me.body.id, revokedAt: null } })).toBe(0);
    expect((await client.call('GET', '/auth/me')).status).toBe(401);
    expect((await new AppClient(stack.apiUrl).login(email, PASSWORD)).status).toBe(401);
    // The address is free again.
    expect((await new AppClient(stack.apiUrl).register({ email, password: PASSWORD })).status).toBe(201);
  });

  it('is refused while a merchant the user owns holds money; money records stay', async () => {
    const { client } = await signedInClient();
    const merchant = await client.call('POST', '/dashboard/merchant/ensure', {
      body: { name: 'Loja com saldo', document: '11.222.333/0001-81', type: 'PRODUCER' },
    });
    expect(merchant.status).toBe(200);
    await stack.sequelize.transaction((t) =>
      writeLedgerEntry(
        stack.sequelize,
        chargePaidEntry({
          chargeId: crypto.randomUUID(),
          merchantId: merchant.body.id,
          amountCents: 5_000,
          feeCents: 0,
          splits: [],
        }),
        t,
      ),
    );
    const res = await client.call('DELETE', '/auth/delete-account', { body: { password: PASSWORD } });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      code: 'MERCHANT_HAS_BALANCE',
      details: { merchantIds: [merchant.body.id] },
    });
    expect((await client.call('GET', '/auth/me')).status).toBe(200);
    await assertLedgerInvariant(stack.sequelize);
  });
});
