/**
 * Two-factor authentication over HTTP against the real stack. TOTP codes come from otplib in the
 * test (an authenticator app's algorithm, independent of our code paths); recovery codes are
 * single-use; sensitive actions need an action token; wrong codes are throttled.
 */
import { authenticator } from 'otplib';
import { QueryTypes } from 'sequelize';
import { sha256 } from '../../core/identity/opaqueTokens';
import { ActionToken, AuthChallenge, SecondFactor } from '../../db/models';
import { AppClient, tallyAnswers } from '../support/appClient';
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

/** A TOTP code for a time step after every step already used (each step is accepted once). */
class Authenticator {
  private lastStep = -1;
  constructor(readonly secret: string) {}
  async code(): Promise<string> {
    // ±30 s of drift is accepted: a code for the next step works already; beyond that, wait.
    for (;;) {
      const nowStep = Math.floor(Date.now() / 30_000);
      for (const step of [nowStep, nowStep + 1]) {
        if (step > this.lastStep) {
          this.lastStep = step;
          return authenticator.clone({ epoch: step * 30_000 }).generate(this.secret);
        }
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

async function userWithTotp(): Promise<{
  client: AppClient;
  email: string;
  app: Authenticator;
  recoveryCodes: string[];
}> {
  const { client, email } = await signedInUser(stack);
  const setup = await client.call('POST', '/auth/2fa/totp/setup');
  expect(setup.status).toBe(200);
  expect(setup.body.otpauthUrl).toMatch(/^otpauth:\/\/totp\/Pix%20Gateway:/);
  expect(setup.body.qrCodePng).toMatch(/^data:image\/png;base64,/);
  const app = new Authenticator(new URL(setup.body.otpauthUrl).searchParams.get('secret')!);
  expect(app.secret).toBe(setup.body.secret);
  const confirm = await client.call('POST', '/auth/2fa/totp/confirm', { body: { code: await app.code() } });
  expect(confirm.status).toBe(200);
  expect(confirm.body.recoveryCodes).toHaveLength(10);
  return { client, email, app, recoveryCodes: confirm.body.recoveryCodes };
}

describe('TOTP', () => {
  it('setup → confirm with a code from otplib → status on → login asks for the second factor', async () => {
    const { client, email, app } = await userWithTotp();
    const status = await client.call('GET', '/auth/2fa/status');
    expect(status.body).toEqual({
      enabled: true,
      totp: { enabled: true, pending: false },
      email: { enabled: false },
      recoveryCodesLeft: 10,
    });
    const again = await client.call('POST', '/auth/2fa/totp/setup');
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('SECOND_FACTOR_ALREADY_ENABLED');

    const fresh = new AppClient(stack.apiUrl);
    const login = await fresh.login(email, PASSWORD);
    expect(login.status).toBe(200);
    expect(login.body).toEqual({
      message: expect.any(String),
      secondFactorRequired: true,
      challengeToken: expect.any(String),
      methods: ['totp', 'recovery'],
    });
    expect(login.body.accessToken).toBeUndefined();
    const methods = await fresh.call('GET', '/auth/login/second-factor', {
      headers: { 'x-challenge-token': login.body.challengeToken },
    });
    expect(methods.body.methods).toEqual(['totp', 'recovery']);
    const wrong = await fresh.call('POST', '/auth/login/second-factor', {
      body: { challengeToken: login.body.challengeToken, code: '000000' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('INVALID_SECOND_FACTOR_CODE');
    const done = await fresh.call('POST', '/auth/login/second-factor', {
      body: { challengeToken: login.body.challengeToken, code: await app.code() },
    });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      expiresIn: 900,
    });
    expect(fresh.cookies.get('refresh_token')).toBe(done.body.refreshToken);
    // The challenge is spent.
    const replay = await fresh.call('POST', '/auth/login/second-factor', {
      body: { challengeToken: login.body.challengeToken, code: await app.code() },
    });
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe('INVALID_CHALLENGE');
  });

  it('refuses a code already used (same time step)', async () => {
    const { email, app } = await userWithTotp();
    const a = new AppClient(stack.apiUrl);
    const first = await a.login(email, PASSWORD);
    const code = await app.code();
    expect(
      (await a.call('POST', '/auth/login/second-factor', { body: { challengeToken: first.body.challengeToken, code } }))
        .status,
    ).toBe(200);
    const b = new AppClient(stack.apiUrl);
    const second = await b.login(email, PASSWORD);
    const replay = await b.call('POST', '/auth/login/second-factor', {
      body: { challengeToken: second.body.challengeToken, code },
    });
    expect(replay.status).toBe(401);
  });

  it('recovery codes log in once each', async () => {
    const { email, recoveryCodes } = await userWithTotp();
    const a = new AppClient(stack.apiUrl);
    const first = await a.login(email, PASSWORD);
    expect(
      (
        await a.call('POST', '/auth/login/second-factor', {
          body: { challengeToken: first.body.challengeToken, code: recoveryCodes[0] },
        })
      ).status,
    ).toBe(200);
    const b = new AppClient(stack.apiUrl);
    const second = await b.login(email, PASSWORD);
    const reused = await b.call('POST', '/auth/login/second-factor', {
      body: { challengeToken: second.body.challengeToken, code: recoveryCodes[0] },
    });
    expect(reused.status).toBe(401);
    const ok = await b.call('POST', '/auth/login/second-factor', {
      body: { challengeToken: second.body.challengeToken, code: recoveryCodes[1].toUpperCase() },
    });
    expect(ok.status).toBe(200);
    expect((await b.call('GET', '/auth/2fa/status', { bearer: ok.body.accessToken })).body.recoveryCodesLeft).toBe(8);
  });

  it('a challenge dies after 5 wrong codes, and the user is locked with 429 and Retry-After', async () => {
    const { email, app } = await userWithTotp();
    const c = new AppClient(stack.apiUrl);
    const login = await c.login(email, PASSWORD);
    for (let i = 0; i < 5; i++)
      expect(
        (
          await c.call('POST', '/auth/login/second-factor', {
            body: { challengeToken: login.body.challengeToken, code: '111111' },
          })
        ).status,
      ).toBe(401);
    const dead = await c.call('POST', '/auth/login/second-factor', {
      body: { challengeToken: login.body.challengeToken, code: await app.code() },
    });
    expect(dead.body.error.code).toBe('INVALID_CHALLENGE');
    const next = await c.login(email, PASSWORD);
    const wrong = await c.call('POST', '/auth/login/second-factor', {
      body: { challengeToken: next.body.challengeToken, code: '222222' },
    });
    expect(wrong.status).toBe(401); // the 6th wrong code for this user locks
    const locked = await c.call('POST', '/auth/login/second-factor', {
      body: { challengeToken: next.body.challengeToken, code: await app.code() },
    });
    expect(locked.status).toBe(429);
    expect(locked.body.error.code).toBe('TOO_MANY_ATTEMPTS');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('sensitive actions', () => {
  it('change-password needs an action token once 2FA is on; the token is bound to its action and used once', async () => {
    const { client, app } = await userWithTotp();
    const without = await client.call('POST', '/auth/change-password', {
      body: { currentPassword: PASSWORD, newPassword: 'another long password' },
    });
    expect(without.status).toBe(403);
    expect(without.body.error).toMatchObject({
      code: 'SECOND_FACTOR_REQUIRED',
      details: { action: 'change-password' },
    });

    const wrongAction = await client.call('POST', '/auth/2fa/action/start', { body: { action: 'delete-account' } });
    const wrongToken = await client.call('POST', '/auth/2fa/action/confirm', {
      body: { challengeId: wrongAction.body.challengeId, code: await app.code() },
    });
    expect(wrongToken.status).toBe(200);
    const refused = await client.call('POST', '/auth/change-password', {
      body: { currentPassword: PASSWORD, newPassword: 'another long password' },
      headers: { 'x-action-token': wrongToken.body.actionToken },
    });
    expect(refused.status).toBe(403);

    const start = await client.call('POST', '/auth/2fa/action/start', { body: { action: 'change-password' } });
    expect(start.body).toMatchObject({
      challengeId: expect.any(String),
      action: 'change-password',
      methods: ['totp', 'recovery'],
    });
    const confirm = await client.call('POST', '/auth/2fa/action/confirm', {
      body: { challengeId: start.body.challengeId, code: await app.code() },
    });
    expect(confirm.status).toBe(200);
    const ok = await client.call('POST', '/auth/change-password', {
      body: { currentPassword: PASSWORD, newPassword: 'another long password' },
      headers: { 'x-action-token': confirm.body.actionToken },
    });
    expect(ok.status).toBe(200);
    const replay = await client.call('POST', '/auth/change-password', {
      body: { currentPassword: 'another long password', newPassword: 'a third long password' },
      headers: { 'x-action-token': confirm.body.actionToken },
    });
    expect(replay.status).toBe(403);
  });

  it('another user cannot confirm my action challenge', async () => {
    const mine = await userWithTotp();
    const theirs = await userWithTotp();
    const start = await mine.client.call('POST', '/auth/2fa/action/start', { body: { action: 'delete-account' } });
    const stolen = await theirs.client.call('POST', '/auth/2fa/action/confirm', {
      body: { challengeId: start.body.challengeId, code: await theirs.app.code() },
    });
    expect(stolen.status).toBe(401);
    expect(stolen.body.error.code).toBe('INVALID_CHALLENGE');
  });

  it('delete-account accepts an action token instead of the password', async () => {
    const { client, app, email } = await userWithTotp();
    const start = await client.call('POST', '/auth/2fa/action/start', { body: { action: 'delete-account' } });
    const confirm = await client.call('POST', '/auth/2fa/action/confirm', {
      body: { challengeId: start.body.challengeId, code: await app.code() },
    });
    const res = await client.call('DELETE', '/auth/delete-account', {
      body: {},
      headers: { 'x-action-token': confirm.body.actionToken },
    });
    expect(res.status).toBe(200);
    expect((await new AppClient(stack.apiUrl).login(email, PASSWORD)).status).toBe(401);
  });
});

/**
 * `count` distinct 6-digit codes, none of them a code of `secret` from 2 steps before now to 10
 * steps after (±1 step is accepted): wrong whatever the clock does while the test runs.
 */
function wrongCodes(secret: string, count: number): string[] {
  const now = Math.floor(Date.now() / 30_000);
  const valid = new Set(
    Array.from({ length: 13 }, (_, i) => authenticator.clone({ epoch: (now - 2 + i) * 30_000 }).generate(secret)),
  );
  const codes: string[] = [];
  for (let n = 100_000; codes.length < count; n++) if (!valid.has(String(n))) codes.push(String(n));
  return codes;
}

describe('attempt limits under concurrency', () => {
  it('40 wrong codes at once on one login challenge: 5 are evaluated, and the right code afterwards finds the challenge dead', async () => {
    const { email, app } = await userWithTotp();
    const c = new AppClient(stack.apiUrl);
    const login = await c.login(email, PASSWORD);
    const challengeToken = login.body.challengeToken as string;
    const answers = await Promise.all(
      wrongCodes(app.secret, 40).map((code) =>
        c.call('POST', '/auth/login/second-factor', { body: { challengeToken, code } }),
      ),
    );
    expect(tallyAnswers(answers)).toEqual({ '401 INVALID_SECOND_FACTOR_CODE': 5, '401 INVALID_CHALLENGE': 35 });
    const challenge = await AuthChallenge.findOne({ where: { tokenHash: sha256(challengeToken) } });
    expect(challenge).toMatchObject({ attempts: 5, completedAt: null });

    const right = await c.call('POST', '/auth/login/second-factor', {
      body: { challengeToken, code: await app.code() },
    });
    expect(right.status).toBe(401);
    expect(right.body.error.code).toBe('INVALID_CHALLENGE');
    expect(right.body.accessToken).toBeUndefined();
    expect(await AuthChallenge.findByPk(challenge!.id)).toMatchObject({ attempts: 5, completedAt: null });
  });

  it('40 wrong codes at once on one action challenge: 5 are evaluated, and the right code afterwards gets no action token', async () => {
    const { client, app } = await userWithTotp();
    const me = await client.call('GET', '/auth/me');
    const start = await client.call('POST', '/auth/2fa/action/start', { body: { action: 'refund' } });
    const challengeId = start.body.challengeId as string;
    const answers = await Promise.all(
      wrongCodes(app.secret, 40).map((code) =>
        client.call('POST', '/auth/2fa/action/confirm', { body: { challengeId, code } }),
      ),
    );
    expect(tallyAnswers(answers)).toEqual({ '401 INVALID_SECOND_FACTOR_CODE': 5, '401 INVALID_CHALLENGE': 35 });
    expect(await AuthChallenge.findByPk(challengeId)).toMatchObject({ attempts: 5, completedAt: null });

    const right = await client.call('POST', '/auth/2fa/action/confirm', {
      body: { challengeId, code: await app.code() },
    });
    expect(right.status).toBe(401);
    expect(right.body.error.code).toBe('INVALID_CHALLENGE');
    expect(await ActionToken.count({ where: { userId: me.body.id } })).toBe(0);
  });

  it('40 wrong codes at once on a TOTP setup confirm: the per-user lock lets 6 through (5 free, the 6th locks) and answers 429 to the rest', async () => {
    const { client } = await signedInUser(stack);
    const me = await client.call('GET', '/auth/me');
    const setup = await client.call('POST', '/auth/2fa/totp/setup');
    const secret = setup.body.secret as string;
    const answers = await Promise.all(
      wrongCodes(secret, 40).map((code) => client.call('POST', '/auth/2fa/totp/confirm', { body: { code } })),
    );
    expect(tallyAnswers(answers)).toEqual({ '401 INVALID_SECOND_FACTOR_CODE': 6, '429 TOO_MANY_ATTEMPTS': 34 });
    const [throttle] = await stack.sequelize.query<{ failures: number }>(
      `SELECT failures FROM login_throttles WHERE key = :key`,
      {
        type: QueryTypes.SELECT,
        replacements: { key: `second-factor:${me.body.id}` },
      },
    );
    expect(throttle.failures).toBe(6);

    const right = await client.call('POST', '/auth/2fa/totp/confirm', {
      body: { code: authenticator.generate(secret) },
    });
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await SecondFactor.findByPk(me.body.id)).toMatchObject({ totpEnabledAt: null });
  });
});
