/**
 * The local mail sink (scripts/lib/mailSink.ts) is a real SMTP server: nodemailer sends to it
 * over TCP on loopback, it parses the message, keeps it in memory and writes it as JSON, and the
 * CLI's `mail list|show` (cli/mail.ts) read those files. Also: our SMTP error words never carry
 * the server's reply text.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createSmtpTransport, describeSmtpError } from '../../core/mail/smtp';
import { startMailSink, type MailSink } from '../../scripts/lib/mailSink';
import { mailListText, mailShowText } from '../../cli/mail';

jest.setTimeout(120_000);

let dir: string;
let sink: MailSink;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mail-sink-'));
  sink = await startMailSink({ port: 0, dir });
});

afterEach(async () => {
  await sink.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('startMailSink', () => {
  it('receives a message over SMTP, keeps it in memory and writes it as JSON', async () => {
    expect(sink.url).toMatch(/^smtp:\/\/127\.0\.0\.1:\d+$/);
    const transport = createSmtpTransport(sink.url);
    const arriving = sink.waitFor((m) => m.subject === 'Seu código', 30_000);
    await transport.sendMail({
      from: 'Pix Gateway <no-reply@localhost>',
      to: 'ana@example.com',
      subject: 'Seu código',
      text: 'Código: 123456\nVálido por 10 minutos.',
    });
    const mail = await arriving;
    expect(mail).toMatchObject({
      to: ['ana@example.com'],
      from: 'Pix Gateway <no-reply@localhost>',
      subject: 'Seu código',
      text: 'Código: 123456\nVálido por 10 minutos.',
    });
    expect(sink.messages()).toEqual([mail]);
    const file = path.join(dir, `${mail.id}.json`);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(mail);
    expect(fs.statSync(file).mode & 0o077).toBe(0);
  });

  it('waitFor returns a mail that already arrived, and times out on none', async () => {
    await createSmtpTransport(sink.url).sendMail({
      from: 'a@localhost',
      to: 'b@example.com',
      subject: 'one',
      text: 'x',
    });
    await expect(sink.waitFor((m) => m.subject === 'one', 1000)).resolves.toMatchObject({ subject: 'one' });
    await expect(sink.waitFor((m) => m.subject === 'two', 200)).rejects.toThrow(/no matching mail/);
  });

  it('is stopped: a send fails with our words, which carry no server text or URL', async () => {
    await sink.stop();
    const err = await createSmtpTransport(`smtp://user:pw-SHOULD-NOT-LEAK@127.0.0.1:${sink.port}`)
      .sendMail({ from: 'a@localhost', to: 'b@example.com', subject: 's', text: 't' })
      .catch((e: unknown) => e);
    const problem = describeSmtpError(err);
    expect(problem).toEqual({
      code: 'SMTP_UNREACHABLE',
      message: 'could not connect to the SMTP server',
      retryable: true,
    });
    expect(
      describeSmtpError({ code: 'EENVELOPE', responseCode: 550, response: '550 no such user pw-SHOULD-NOT-LEAK' }),
    ).toEqual({
      code: 'SMTP_REJECTED',
      message: 'the SMTP server refused the message (reply 550)',
      retryable: false,
    });
    expect(describeSmtpError({ code: 'EENVELOPE', responseCode: 451 }).retryable).toBe(true);
  });
});

describe('gateway mail list|show', () => {
  it('lists stored mail and shows one by id or by its suffix', async () => {
    const transport = createSmtpTransport(sink.url);
    await transport.sendMail({ from: 'a@localhost', to: 'ana@example.com', subject: 'Primeiro', text: 'um' });
    await transport.sendMail({ from: 'a@localhost', to: 'bia@example.com', subject: 'Segundo', text: 'dois' });
    const [first, second] = sink.messages();
    const list = mailListText(dir);
    expect(list.trim().split('\n')).toEqual([expect.stringContaining(first.id), expect.stringContaining(second.id)]);
    expect(list).toContain('to bia@example.com  "Segundo"');
    expect(list).not.toContain('dois'); // bodies only with `show`
    expect(mailShowText(dir, second.id)).toContain('subject   Segundo\n\ndois');
    expect(mailShowText(dir, first.id.split('-').pop() as string)).toContain('to        ana@example.com');
    expect(JSON.parse(mailShowText(dir, first.id, { json: true }))).toEqual(first);
    expect(() => mailShowText(dir, 'nope')).toThrow(/no mail nope/);
    expect(mailListText(path.join(dir, 'missing'))).toMatch(/^no mail in/);
  });

  it('runs as `npm run gateway -- mail list` against MAIL_DIR', async () => {
    await createSmtpTransport(sink.url).sendMail({
      from: 'a@localhost',
      to: 'ana@example.com',
      subject: 'Via CLI',
      text: 'corpo',
    });
    const root = path.resolve(__dirname, '..', '..');
    const run = (args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'cli', 'gateway.ts'), ...args], {
        cwd: root,
        env: { ...process.env, MAIL_DIR: dir },
        encoding: 'utf8',
      });
    const list = run(['mail', 'list']);
    expect(list.status).toBe(0);
    expect(list.stdout).toContain('"Via CLI"');
    const show = run(['mail', 'show', sink.messages()[0].id]);
    expect(show.stdout).toContain('corpo');
    expect(run(['mail', 'show']).status).toBe(1);
  });
});
