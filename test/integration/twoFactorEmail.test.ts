/**
 * E-mail codes over HTTP against the real stack: the code travels through the durable mail
 * workflow to a real SMTP server (the test's sink) and is read from there, never from the
 * database. Codes work once and expire after 10 minutes. With a factor on, adding another needs
 * an action token for "manage-2fa". Factor changes, recovery-code use and action tokens for money
 * actions are announced to the account by e-mail, read here from the same sink.
 */
import { Client, Connection } from '@temporalio/client';
import { authenticator } from 'otplib';
import { AuthChallenge, SecondFactor } from '../../db/models';
import type { Mail } from '../../cli/lib/storedMails';
import { AppClient, tallyAnswers } from '../support/appClient';
import { testEnv } from '../support/env';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { PASSWORD, signedInUser } from '../support/signedIn';

jest.setTimeout(120_000);

let stack: IntegrationStack;

beforeAll(async () => {
  // A stack of its own, not the worker's shared one (test/support/sharedStack.ts): it reads its mail sink in process.
  stack = await startIntegrationStack();
});

afterAll(async () => {
  await stack?.stop();
});

const CODE_SUBJECT = 'Your Pix Gateway verification code';

/** The code of the first code mail to `to` received after `since` (other mail to the account is not a code). */
async function codeFor(to: string, since: number): Promise<string> {
  const mail = await stack.mail.waitFor(
    (m) => m.to.includes(to.toLowerCase()) && m.subject === CODE_SUBJECT && new Date(m.receivedAt).getTime() >= since,
    90_000,
  );
  const match = /\b(\d{6})\b/.exec(mail.text);
  if (!match) throw new Error(`no code in mail "${mail.subject}"`);
  return match[1];
}

async function userWithEmailCodes(): Promise<{ client: AppClient; email: string; recoveryCodes: string[] }> {
  const { client, email } = await signedInUser(stack);
  const since = Date.now();
  const setup = await client.call('POST', '/auth/2fa/email/setup');
  expect(setup.status).toBe(200);
  const code = await codeFor(email, since);
  const confirm = await client.call('POST', '/auth/2fa/email/confirm', { body: { code } });
  expect(confirm.status).toBe(200);
  expect(confirm.body.recoveryCodes).toHaveLength(10);
  return { client, email, recoveryCodes: confirm.body.recoveryCodes };
}

/** The first security notice to `to` received after `since` whose subject matches `subject`. */
async function noticeFor(to: string, since: number, subject: RegExp): Promise<Mail> {
  return stack.mail.waitFor(
    (m) =>
      m.to.includes(to.toLowerCase()) &&
      m.subject.startsWith('Security notice') &&
      subject.test(m.subject) &&
      new Date(m.receivedAt).getTime() >= since,
    90_000,
  );
}

/** A notice says what happened, never how to do it again: no code, seed, token or recovery code. */
function expectNoSecrets(mail: Mail, secrets: string[]): void {
  const whole = `${mail.subject}\n${mail.text}`;
  expect(whole).not.toMatch(/\b\d{6}\b/);
  for (const secret of secrets) expect(whole.toLowerCase()).not.toContain(secret.toLowerCase());
}

/** A user whose only factor is TOTP; `code(n)` is the code n steps after the one that turned it on. */
async function userWithTotp(): Promise<{
  client: AppClient;
  email: string;
  userId: string;
  code: (steps: number) => string;
}> {
  const { client, email, userId } = await signedInUser(stack);
  const setup = await client.call('POST', '/auth/2fa/totp/setup');
  expect(setup.status).toBe(200);
  const first = Math.floor(Date.now() / 30_000);
  const code = (steps: number) => authenticator.clone({ epoch: (first + steps) * 30_000 }).generate(setup.body.secret);
  expect((await client.call('POST', '/auth/2fa/totp/confirm', { body: { code: code(0) } })).status).toBe(200);
  return { client, email, userId, code };
}

/** A 6-digit code that is none of the codes of `secret` from 2 steps before now to 10 after. */
function notACodeOf(secret: string): string {
  const now = Math.floor(Date.now() / 30_000);
  const valid = new Set(
    Array.from({ length: 13 }, (_, i) => authenticator.clone({ epoch: (now - 2 + i) * 30_000 }).generate(secret)),
  );
  let n = 100_000;
  while (valid.has(String(n))) n++;
  return String(n);
}

/** An action token for `action`, confirmed with an e-mailed code. */
async function actionTokenByEmail(client: AppClient, email: string, action: string): Promise<string> {
  const start = await client.call('POST', '/auth/2fa/action/start', { body: { action } });
  expect(start.status).toBe(200);
  const since = Date.now();
  expect(
    (await client.call('POST', '/auth/2fa/action/email', { body: { challengeId: start.body.challengeId } })).status,
  ).toBe(200);
  const code = await codeFor(email, since);
  const confirm = await client.call('POST', '/auth/2fa/action/confirm', {
    body: { challengeId: start.body.challengeId, code },
  });
  expect(confirm.status).toBe(200);
  return confirm.body.actionToken as string;
}

it('email setup → the code from the SMTP sink turns it on; login then needs an e-mailed code, usable once', async () => {
  const { client, email } = await userWithEmailCodes();
  expect((await client.call('GET', '/auth/2fa/status')).body).toMatchObject({
    enabled: true,
    email: { enabled: true },
    totp: { enabled: false },
  });

  const fresh = new AppClient(stack.apiUrl);
  const login = await fresh.login(email, PASSWORD);
  expect(login.body).toMatchObject({ secondFactorRequired: true, methods: ['email', 'recovery'] });
  const since = Date.now();
  const sent = await fresh.call('POST', '/auth/login/second-factor/email', {
    body: { challengeToken: login.body.challengeToken },
  });
  expect(sent.status).toBe(200);
  const code = await codeFor(email, since);
  const done = await fresh.call('POST', '/auth/login/second-factor', {
    body: { challengeToken: login.body.challengeToken, code },
  });
  expect(done.status).toBe(200);
  expect(done.body.accessToken).toEqual(expect.any(String));

  // The same code cannot finish another login.
  const again = new AppClient(stack.apiUrl);
  const second = await again.login(email, PASSWORD);
  const reused = await again.call('POST', '/auth/login/second-factor', {
    body: { challengeToken: second.body.challengeToken, code },
  });
  expect(reused.status).toBe(401);
  expect(reused.body.error.code).toBe('INVALID_SECOND_FACTOR_CODE');
});

it('an e-mailed code expires after 10 minutes', async () => {
  const { email } = await userWithEmailCodes();
  const client = new AppClient(stack.apiUrl);
  const login = await client.login(email, PASSWORD);
  const since = Date.now();
  await client.call('POST', '/auth/login/second-factor/email', { body: { challengeToken: login.body.challengeToken } });
  const code = await codeFor(email, since);
  const challenge = await AuthChallenge.findOne({ where: { purpose: 'LOGIN' }, order: [['createdAt', 'DESC']] });
  const expiresIn = (challenge!.emailCodeExpiresAt!.getTime() - Date.now()) / 1000;
  expect(expiresIn).toBeGreaterThan(590);
  expect(expiresIn).toBeLessThanOrEqual(600);
  // Ten minutes later (moved in the database: the clock of the code, not of the test).
  await challenge!.update({ emailCodeExpiresAt: new Date(Date.now() - 1000) });
  const late = await client.call('POST', '/auth/login/second-factor', {
    body: { challengeToken: login.body.challengeToken, code },
  });
  expect(late.status).toBe(401);
});

it('a sensitive action can be confirmed with an e-mailed code', async () => {
  const { client, email } = await userWithEmailCodes();
  const start = await client.call('POST', '/auth/2fa/action/start', { body: { action: 'change-password' } });
  expect(start.body.methods).toEqual(['email', 'recovery']);
  const since = Date.now();
  expect(
    (await client.call('POST', '/auth/2fa/action/email', { body: { challengeId: start.body.challengeId } })).status,
  ).toBe(200);
  const code = await codeFor(email, since);
  const confirm = await client.call('POST', '/auth/2fa/action/confirm', {
    body: { challengeId: start.body.challengeId, code },
  });
  expect(confirm.status).toBe(200);
  const ok = await client.call('POST', '/auth/change-password', {
    body: { currentPassword: PASSWORD, newPassword: 'another long password' },
    headers: { 'x-action-token': confirm.body.actionToken },
  });
  expect(ok.status).toBe(200);
});

it('40 wrong codes at once on the e-mail setup confirm: 5 are evaluated, and the right code afterwards finds the setup dead', async () => {
  const { client, email } = await signedInUser(stack);
  const since = Date.now();
  expect((await client.call('POST', '/auth/2fa/email/setup')).status).toBe(200);
  const code = await codeFor(email, since);
  const wrong = Array.from({ length: 41 }, (_, i) => String(100_000 + i))
    .filter((c) => c !== code)
    .slice(0, 40);
  const answers = await Promise.all(
    wrong.map((c) => client.call('POST', '/auth/2fa/email/confirm', { body: { code: c } })),
  );
  expect(tallyAnswers(answers)).toEqual({ '401 INVALID_SECOND_FACTOR_CODE': 5, '409 SECOND_FACTOR_NOT_PENDING': 35 });

  const right = await client.call('POST', '/auth/2fa/email/confirm', { body: { code } });
  expect(right.status).toBe(409);
  expect(right.body.error.code).toBe('SECOND_FACTOR_NOT_PENDING');
  expect((await client.call('GET', '/auth/2fa/status')).body).toMatchObject({
    enabled: false,
    email: { enabled: false },
  });
});

describe('adding a factor when one is on needs an existing one (action "manage-2fa")', () => {
  it('an access token alone (stolen) cannot start or confirm a TOTP on an e-mail-2FA account; a manage-2fa token from an e-mailed code can', async () => {
    const { client, email } = await userWithEmailCodes();
    const me = await client.call('GET', '/auth/me');
    const stolen = await client.call('POST', '/auth/2fa/totp/setup');
    expect(stolen.status).toBe(403);
    expect(stolen.body.error).toMatchObject({ code: 'SECOND_FACTOR_REQUIRED', details: { action: 'manage-2fa' } });
    expect(await SecondFactor.findByPk(me.body.id)).toMatchObject({ totpPendingCiphertext: null, totpEnabledAt: null });
    // A token for another action does not do.
    const otherAction = await actionTokenByEmail(client, email, 'change-password');
    expect(
      (await client.call('POST', '/auth/2fa/totp/setup', { headers: { 'x-action-token': otherAction } })).status,
    ).toBe(403);

    const token = await actionTokenByEmail(client, email, 'manage-2fa');
    const setup = await client.call('POST', '/auth/2fa/totp/setup', { headers: { 'x-action-token': token } });
    expect(setup.status).toBe(200);
    const secret = setup.body.secret as string;
    // The confirm needs it too: the seed alone (shown to whoever called setup) is not enough.
    const bare = await client.call('POST', '/auth/2fa/totp/confirm', {
      body: { code: authenticator.generate(secret) },
    });
    expect(bare.status).toBe(403);
    expect(bare.body.error).toMatchObject({ code: 'SECOND_FACTOR_REQUIRED', details: { action: 'manage-2fa' } });
    // A wrong code does not use the token up.
    const wrong = await client.call('POST', '/auth/2fa/totp/confirm', {
      body: { code: notACodeOf(secret) },
      headers: { 'x-action-token': token },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('INVALID_SECOND_FACTOR_CODE');
    const ok = await client.call('POST', '/auth/2fa/totp/confirm', {
      body: { code: authenticator.generate(secret) },
      headers: { 'x-action-token': token },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.recoveryCodes).toEqual([]); // the e-mail factor's codes stand
    expect((await client.call('GET', '/auth/2fa/status')).body).toMatchObject({
      totp: { enabled: true, pending: false },
      email: { enabled: true },
    });
  });

  it('a TOTP account adds e-mail codes only with a manage-2fa token, on setup (no code is mailed without it) and on confirm; the token works once', async () => {
    const { client, email, userId, code } = await userWithTotp();
    const challengesBefore = await AuthChallenge.count({ where: { userId, purpose: 'EMAIL_SETUP' } });
    const stolen = await client.call('POST', '/auth/2fa/email/setup');
    expect(stolen.status).toBe(403);
    expect(stolen.body.error).toMatchObject({ code: 'SECOND_FACTOR_REQUIRED', details: { action: 'manage-2fa' } });
    expect(await AuthChallenge.count({ where: { userId, purpose: 'EMAIL_SETUP' } })).toBe(challengesBefore);

    const start = await client.call('POST', '/auth/2fa/action/start', { body: { action: 'manage-2fa' } });
    expect(start.body).toMatchObject({ action: 'manage-2fa', methods: ['totp', 'recovery'] });
    const confirm = await client.call('POST', '/auth/2fa/action/confirm', {
      body: { challengeId: start.body.challengeId, code: code(1) },
    });
    expect(confirm.status).toBe(200);
    const token = confirm.body.actionToken as string;

    const since = Date.now();
    expect((await client.call('POST', '/auth/2fa/email/setup', { headers: { 'x-action-token': token } })).status).toBe(
      200,
    );
    const mailed = await codeFor(email, since);
    const bare = await client.call('POST', '/auth/2fa/email/confirm', { body: { code: mailed } });
    expect(bare.status).toBe(403);
    expect(bare.body.error.code).toBe('SECOND_FACTOR_REQUIRED');
    expect(await SecondFactor.findByPk(userId)).toMatchObject({ emailEnabledAt: null });
    const ok = await client.call('POST', '/auth/2fa/email/confirm', {
      body: { code: mailed },
      headers: { 'x-action-token': token },
    });
    expect(ok.status).toBe(200);
    expect((await client.call('GET', '/auth/2fa/status')).body).toMatchObject({
      totp: { enabled: true },
      email: { enabled: true },
    });
    // Used: it opens nothing else.
    const again = await client.call('POST', '/auth/change-password', {
      body: { currentPassword: PASSWORD, newPassword: 'another long password' },
      headers: { 'x-action-token': token },
    });
    expect(again.status).toBe(403);
  });
});

describe('security notices by e-mail', () => {
  it('turning a factor on tells the account: the first one (e-mail codes) and an added TOTP; no code, seed, token or recovery code in the mail', async () => {
    const since = Date.now();
    const { client, email, recoveryCodes } = await userWithEmailCodes();
    const emailOn = await noticeFor(email, since, /e-mail codes/i);
    expect(emailOn.text).toMatch(/second factor was turned on .*: e-mail codes\./);
    expect(emailOn.text).toMatch(/recovery codes/i); // they were issued with it
    expectNoSecrets(emailOn, recoveryCodes);

    const token = await actionTokenByEmail(client, email, 'manage-2fa');
    const setup = await client.call('POST', '/auth/2fa/totp/setup', { headers: { 'x-action-token': token } });
    const beforeTotp = Date.now();
    expect(
      (
        await client.call('POST', '/auth/2fa/totp/confirm', {
          body: { code: authenticator.generate(setup.body.secret) },
          headers: { 'x-action-token': token },
        })
      ).status,
    ).toBe(200);
    const totpOn = await noticeFor(email, beforeTotp, /TOTP/);
    expect(totpOn.text).toMatch(/second factor was turned on .*: TOTP \(an authenticator app\)\./);
    expect(totpOn.text).not.toMatch(/recovery codes/); // the e-mail factor's codes stand: none were issued
    expectNoSecrets(totpOn, [setup.body.secret, token, ...recoveryCodes]);
  });

  it('a recovery code used to sign in, or to confirm an action, tells the account and how many are left', async () => {
    const { client, email, recoveryCodes } = await userWithEmailCodes();
    const fresh = new AppClient(stack.apiUrl);
    const login = await fresh.login(email, PASSWORD);
    const beforeLogin = Date.now();
    const signedIn = await fresh.call('POST', '/auth/login/second-factor', {
      body: { challengeToken: login.body.challengeToken, code: recoveryCodes[0] },
    });
    expect(signedIn.status).toBe(200);
    const onLogin = await noticeFor(email, beforeLogin, /recovery code/i);
    expect(onLogin.text).toMatch(/to sign in/);
    expect(onLogin.text).toMatch(/\b9 recovery codes are left\b/);
    expectNoSecrets(onLogin, [login.body.challengeToken, signedIn.body.accessToken, ...recoveryCodes]);

    const start = await client.call('POST', '/auth/2fa/action/start', { body: { action: 'delete-account' } });
    const beforeAction = Date.now();
    const confirm = await client.call('POST', '/auth/2fa/action/confirm', {
      body: { challengeId: start.body.challengeId, code: recoveryCodes[1] },
    });
    expect(confirm.status).toBe(200);
    const onAction = await noticeFor(email, beforeAction, /recovery code/i);
    expect(onAction.text).toMatch(/delete the account/);
    expect(onAction.text).toMatch(/\b8 recovery codes are left\b/);
    expectNoSecrets(onAction, [confirm.body.actionToken, ...recoveryCodes]);
  });

  it('no notice, no change: when the notice cannot be queued (Temporal away), a recovery-code sign-in answers 503 and the code stays unused', async () => {
    const { email, recoveryCodes } = await userWithEmailCodes();
    const connection = await Connection.connect({ address: testEnv().temporalAddress });
    await connection.close();
    const offline = await stack.extraApi({ temporal: new Client({ connection }) });
    try {
      const c = new AppClient(offline.url);
      const login = await c.login(email, PASSWORD);
      const res = await c.call('POST', '/auth/login/second-factor', {
        body: { challengeToken: login.body.challengeToken, code: recoveryCodes[0] },
      });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(res.body.accessToken).toBeUndefined();
    } finally {
      await offline.close();
    }
    const fresh = new AppClient(stack.apiUrl);
    const login = await fresh.login(email, PASSWORD);
    const ok = await fresh.call('POST', '/auth/login/second-factor', {
      body: { challengeToken: login.body.challengeToken, code: recoveryCodes[0] },
    });
    expect(ok.status).toBe(200);
    expect((await fresh.call('GET', '/auth/2fa/status', { bearer: ok.body.accessToken })).body.recoveryCodesLeft).toBe(
      9,
    );
  });

  it.each([
    ['refund', /refund/],
    ['settlement', /settlement/],
    ['withdrawal', /withdrawal/],
    ['create-credential', /API credential/],
  ])(
    'an action token for "%s" (money or API access) tells the account; the mail carries neither the code nor the token',
    async (action, words) => {
      const { client, email } = await userWithEmailCodes();
      const since = Date.now();
      const token = await actionTokenByEmail(client, email, action);
      const notice = await noticeFor(email, since, words);
      expect(notice.text).toMatch(/valid 5 minutes/);
      expectNoSecrets(notice, [token]);
    },
  );
});
