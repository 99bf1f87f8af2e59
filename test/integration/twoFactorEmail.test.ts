/**
 * E-mail codes over HTTP against the real stack: the code travels through the durable mail
 * workflow to a real SMTP server (the test's sink) and is read from there, never from the
 * database. Codes work once and expire after 10 minutes.
 */
import { AuthChallenge } from '../../db/models';
import { AppClient, tallyAnswers, uniqueEmail } from '../support/appClient';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';

jest.setTimeout(120_000);

let stack: IntegrationStack;
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  stack = await startIntegrationStack();
});

afterAll(async () => {
  await stack?.stop();
});

const CODE_SUBJECT = 'Your Pix Gateway verification code';

/** The code of the first code mail to `to` received after `since` (other mail to the account is not a code). */
async function codeFor(to: string, since: number): Promise<string> {
  const mail = await stack.mail.waitFor((m) => m.to.includes(to.toLowerCase()) && m.subject === CODE_SUBJECT && new Date(m.receivedAt).getTime() >= since, 30_000);
  const match = /\b(\d{6})\b/.exec(mail.text);
  if (!match) throw new Error(`no code in mail "${mail.subject}"`);
  return match[1];
}

async function userWithEmailCodes(): Promise<{ client: AppClient; email: string; recoveryCodes: string[] }> {
  const client = new AppClient(stack.apiUrl);
  const email = uniqueEmail();
  await client.register({ email, password: PASSWORD });
  await client.login(email, PASSWORD);
  const since = Date.now();
  const setup = await client.call('POST', '/auth/2fa/email/setup');
  expect(setup.status).toBe(200);
  const code = await codeFor(email, since);
  const confirm = await client.call('POST', '/auth/2fa/email/confirm', { body: { code } });
  expect(confirm.status).toBe(200);
  expect(confirm.body.recoveryCodes).toHaveLength(10);
  return { client, email, recoveryCodes: confirm.body.recoveryCodes };
}

it('email setup → the code from the SMTP sink turns it on; login then needs an e-mailed code, usable once', async () => {
  const { client, email } = await userWithEmailCodes();
  expect((await client.call('GET', '/auth/2fa/status')).body).toMatchObject({ enabled: true, email: { enabled: true }, totp: { enabled: false } });

  const fresh = new AppClient(stack.apiUrl);
  const login = await fresh.login(email, PASSWORD);
  expect(login.body).toMatchObject({ secondFactorRequired: true, methods: ['email', 'recovery'] });
  const since = Date.now();
  const sent = await fresh.call('POST', '/auth/login/second-factor/email', { body: { challengeToken: login.body.challengeToken } });
  expect(sent.status).toBe(200);
  const code = await codeFor(email, since);
  const done = await fresh.call('POST', '/auth/login/second-factor', { body: { challengeToken: login.body.challengeToken, code } });
  expect(done.status).toBe(200);
  expect(done.body.accessToken).toEqual(expect.any(String));

  // The same code cannot finish another login.
  const again = new AppClient(stack.apiUrl);
  const second = await again.login(email, PASSWORD);
  const reused = await again.call('POST', '/auth/login/second-factor', { body: { challengeToken: second.body.challengeToken, code } });
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
  const late = await client.call('POST', '/auth/login/second-factor', { body: { challengeToken: login.body.challengeToken, code } });
  expect(late.status).toBe(401);
});

it('a sensitive action can be confirmed with an e-mailed code', async () => {
  const { client, email } = await userWithEmailCodes();
  const start = await client.call('POST', '/auth/2fa/action/start', { body: { action: 'change-password' } });
  expect(start.body.methods).toEqual(['email', 'recovery']);
  const since = Date.now();
  expect((await client.call('POST', '/auth/2fa/action/email', { body: { challengeId: start.body.challengeId } })).status).toBe(200);
  const code = await codeFor(email, since);
  const confirm = await client.call('POST', '/auth/2fa/action/confirm', { body: { challengeId: start.body.challengeId, code } });
  expect(confirm.status).toBe(200);
  const ok = await client.call('POST', '/auth/change-password', {
    body: { currentPassword: PASSWORD, newPassword: 'another long password' },
    headers: { 'x-action-token': confirm.body.actionToken },
  });
  expect(ok.status).toBe(200);
});

it('40 wrong codes at once on the e-mail setup confirm: 5 are evaluated, and the right code afterwards finds the setup dead', async () => {
  const client = new AppClient(stack.apiUrl);
  const email = uniqueEmail();
  await client.register({ email, password: PASSWORD });
  await client.login(email, PASSWORD);
  const since = Date.now();
  expect((await client.call('POST', '/auth/2fa/email/setup')).status).toBe(200);
  const code = await codeFor(email, since);
  const wrong = Array.from({ length: 41 }, (_, i) => String(100_000 + i))
    .filter((c) => c !== code)
    .slice(0, 40);
  const answers = await Promise.all(wrong.map((c) => client.call('POST', '/auth/2fa/email/confirm', { body: { code: c } })));
  expect(tallyAnswers(answers)).toEqual({ '401 INVALID_SECOND_FACTOR_CODE': 5, '409 SECOND_FACTOR_NOT_PENDING': 35 });

  const right = await client.call('POST', '/auth/2fa/email/confirm', { body: { code } });
  expect(right.status).toBe(409);
  expect(right.body.error.code).toBe('SECOND_FACTOR_NOT_PENDING');
  expect((await client.call('GET', '/auth/2fa/status')).body).toMatchObject({ enabled: false, email: { enabled: false } });
});
