/**
 * E-mail on the real stack: Mailer.send (API side) → outgoing_mails row (body encrypted) →
 * SendMail workflow → deliverMail activity → nodemailer over SMTP → the local sink. The code in
 * the body reaches the inbox but never the workflow history, and the row keeps no body once
 * sent. An SMTP server that is down at first still gets the mail after retries.
 */
import crypto from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { QueryTypes } from 'sequelize';
import { Mailer } from '../../api/mail/mailer';
import { ApiError } from '../../api/errors/apiError';
import { mailWorkflowId } from '../../workflows/mail/definitions';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { testEnv, waitFor } from '../support/env';

jest.setTimeout(120_000);

let stack: IntegrationStack;
let mailer: Mailer;

beforeAll(async () => {
  // A stack of its own, not the worker's shared one (test/support/sharedStack.ts): it reads and restarts its mail sink in process.
  stack = await startIntegrationStack();
  mailer = new Mailer({
    sequelize: stack.sequelize,
    temporal: stack.temporal,
    taskQueue: stack.taskQueue,
    encryptionKey: stack.encryptionKey,
  });
});

afterAll(async () => {
  await stack?.stop();
});

interface MailRow {
  id: string;
  to_address: string;
  subject: string;
  body_ciphertext: string | null;
  status: string;
  attempts: number;
  last_error: string | null;
  sent_at: Date | null;
}

const row = async (id: string) =>
  (
    await stack.sequelize.query<MailRow>('SELECT * FROM outgoing_mails WHERE id = :id', {
      replacements: { id },
      type: QueryTypes.SELECT,
    })
  )[0];

const newCode = () => String(crypto.randomInt(100_000, 1_000_000));

/** Every string and every byte payload (as UTF-8) in a history, so a search sees decoded payloads too. */
function historyText(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (value instanceof Uint8Array) out.push(Buffer.from(value).toString('utf8'));
  else if (Array.isArray(value)) for (const v of value) historyText(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) historyText(v, out);
  return out;
}

describe('Mailer.send', () => {
  it('delivers over SMTP to the recipient; the row ends SENT with its body wiped; the code is never in workflow history', async () => {
    const code = newCode();
    const to = `ana+${crypto.randomBytes(3).toString('hex')}@example.com`;
    const text = `Seu código de acesso: ${code}\nEle vale por 10 minutos.`;
    const { mailId } = await mailer.send({ to, subject: 'Código de acesso', text });

    // Stored encrypted while queued.
    const queued = await row(mailId);
    expect(queued.to_address).toBe(to);
    expect(JSON.stringify(queued)).not.toContain(code);

    const mail = await stack.mail.waitFor((m) => m.to.includes(to), 90_000);
    expect(mail).toMatchObject({
      to: [to],
      from: 'Pix Gateway <no-reply@localhost>',
      subject: 'Código de acesso',
      text,
    });

    const handle = stack.temporal.workflow.getHandle(mailWorkflowId(mailId));
    await expect(handle.result()).resolves.toBe('SENT');
    const sent = await row(mailId);
    expect(sent).toMatchObject({ status: 'SENT', body_ciphertext: null, attempts: 1, last_error: null });
    expect(sent.sent_at).toBeInstanceOf(Date);

    const history = historyText(await handle.fetchHistory()).join('\n');
    expect(history).toContain(`"mailId":"${mailId}"`); // the input payload was decoded: the id is there…
    expect(history).not.toContain(code); // …and the code is not
    expect(history).not.toContain('Seu código');
  });

  it('runs the workflow once per mail: a second run of the same row sends nothing', async () => {
    const to = `bia+${crypto.randomBytes(3).toString('hex')}@example.com`;
    const { mailId } = await mailer.send({ to, subject: 'Uma vez', text: 'só uma vez' });
    await stack.temporal.workflow.getHandle(mailWorkflowId(mailId)).result();
    // The same row again (a replayed or retried delivery): already SENT, not sent twice.
    const again = await stack.temporal.workflow.execute('sendMail', {
      workflowId: `mail-again-${mailId}`,
      taskQueue: stack.taskQueue,
      args: [{ mailId }],
    });
    expect(again).toBe('SENT');
    await new Promise((r) => setTimeout(r, 300));
    expect(stack.mail.messages().filter((m) => m.to.includes(to))).toHaveLength(1);
    expect((await row(mailId)).attempts).toBe(1);
  });

  it("sends inside the caller's transaction: the workflow waits for the commit", async () => {
    const to = `edu+${crypto.randomBytes(3).toString('hex')}@example.com`;
    const mailId = await stack.sequelize.transaction(async (transaction) => {
      const sent = await mailer.send({ to, subject: 'Na transação', text: 'depois do commit' }, { transaction });
      // The workflow is already running; its first attempts find no committed row and retry.
      await new Promise((r) => setTimeout(r, 1500));
      return sent.mailId;
    });
    await expect(stack.mail.waitFor((m) => m.to.includes(to), 90_000)).resolves.toMatchObject({
      text: 'depois do commit',
    });
    await expect(stack.temporal.workflow.getHandle(mailWorkflowId(mailId)).result()).resolves.toBe('SENT');
    expect(await row(mailId)).toMatchObject({ status: 'SENT', body_ciphertext: null });
  });

  it('is durable: with the SMTP server down the mail waits, retries, and arrives once the server is back', async () => {
    await stack.mail.stop();
    const code = newCode();
    const to = `caio+${crypto.randomBytes(3).toString('hex')}@example.com`;
    const { mailId } = await mailer.send({ to, subject: 'Código', text: `Código: ${code}` });

    // Two attempts that have failed, not two begun: a row counts an attempt before it connects, so
    // `attempts = 2` alone may be an attempt still under way, which the restarted server would
    // then take (the mail would arrive after one failure). Temporal's pending activity names the
    // next attempt: 3 or more once two have failed. A condition, whatever the host's speed.
    const handle = stack.temporal.workflow.getHandle(mailWorkflowId(mailId));
    const failing = await waitFor(
      async () => {
        const pending = (await handle.describe()).raw.pendingActivities ?? [];
        if (!pending.some((a) => (a.attempt ?? 0) >= 3)) return undefined;
        return row(mailId);
      },
      'two failed attempts',
      120_000,
    );
    expect(failing.attempts).toBeGreaterThanOrEqual(2);
    expect(failing).toMatchObject({
      status: 'QUEUED',
      last_error: 'SMTP_UNREACHABLE: could not connect to the SMTP server',
    });
    expect(failing.body_ciphertext).not.toBeNull();

    const sink = await stack.restartMail();
    // The next retry comes within the backoff (1 s doubling) of the attempts failed so far.
    const mail = await sink.waitFor((m) => m.to.includes(to), 120_000);
    expect(mail.text).toBe(`Código: ${code}`);
    await expect(handle.result()).resolves.toBe('SENT');
    const sent = await row(mailId);
    expect(sent).toMatchObject({ status: 'SENT', body_ciphertext: null, last_error: null });
    expect(sent.attempts).toBeGreaterThanOrEqual(3);
  }, 300_000);

  it('gives up at once when the server refuses the recipient for good: FAILED, body wiped, our words', async () => {
    const { mailId } = await mailer.send({ to: 'ninguem@refused.invalid', subject: 'Código', text: 'Código: 987654' });
    await expect(stack.temporal.workflow.getHandle(mailWorkflowId(mailId)).result()).resolves.toBe('FAILED');
    expect(await row(mailId)).toMatchObject({
      status: 'FAILED',
      body_ciphertext: null,
      attempts: 1,
      last_error: 'SMTP_REJECTED: the SMTP server refused the message (reply 550)',
      sent_at: null,
    });
  });

  it('refuses a malformed recipient or subject with a 400 ApiError and stores nothing', async () => {
    const before = (
      await stack.sequelize.query<{ n: string }>('SELECT count(*) AS n FROM outgoing_mails', {
        type: QueryTypes.SELECT,
      })
    )[0].n;
    for (const msg of [
      { to: 'not-an-address', subject: 's', text: 't' },
      { to: 'a@example.com, b@example.com', subject: 's', text: 't' },
      { to: 'a@example.com\r\nBcc: x@example.com', subject: 's', text: 't' },
      { to: 'a@example.com', subject: 'line\r\nBcc: x@example.com', text: 't' },
    ]) {
      await expect(mailer.send(msg)).rejects.toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    }
    const after = (
      await stack.sequelize.query<{ n: string }>('SELECT count(*) AS n FROM outgoing_mails', {
        type: QueryTypes.SELECT,
      })
    )[0].n;
    expect(after).toBe(before);
  });

  it('answers 503 when the workflow cannot be started, and leaves no body behind', async () => {
    const connection = await Connection.connect({ address: testEnv().temporalAddress });
    await connection.close();
    const offline = new Mailer({
      sequelize: stack.sequelize,
      temporal: new Client({ connection }),
      taskQueue: stack.taskQueue,
      encryptionKey: stack.encryptionKey,
    });
    const err = await offline
      .send({ to: 'dora@example.com', subject: 'Código', text: 'Código: 000111' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    const rows = await stack.sequelize.query<MailRow>(
      `SELECT * FROM outgoing_mails WHERE to_address = 'dora@example.com'`,
      { type: QueryTypes.SELECT },
    );
    expect(rows).toEqual([
      expect.objectContaining({ status: 'FAILED', body_ciphertext: null, last_error: 'WORKFLOW_NOT_STARTED' }),
    ]);
  });
});

describe('/ready', () => {
  it('reports smtp true while the sink is up', async () => {
    const res = await stack.api('GET', '/ready');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, database: true, temporal: true, smtp: true, smtpError: null });
  });

  it('reports an unreachable SMTP server in its own words (no password), without failing readiness', async () => {
    const closed = await stack.extraApi({ smtpUrl: 'smtp://mailer:smtp-pw-SHOULD-NOT-LEAK@127.0.0.1:1' });
    try {
      const res = await fetch(`${closed.url}/ready`);
      const body = await res.json();
      expect(res.status).toBe(200);
      expect(body).toMatchObject({
        ok: true,
        smtp: false,
        smtpError: 'SMTP_UNREACHABLE: could not connect to the SMTP server',
      });
      expect(JSON.stringify(body)).not.toContain('SHOULD-NOT-LEAK');
    } finally {
      await closed.close();
    }
    const unset = await stack.extraApi({ smtpUrl: null });
    try {
      expect(await (await fetch(`${unset.url}/ready`)).json()).toMatchObject({
        ok: true,
        smtp: false,
        smtpError: 'SMTP is not configured (SMTP_URL)',
      });
    } finally {
      await unset.close();
    }
  });
});
