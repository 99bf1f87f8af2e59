/**
 * `npm run gateway -- mail list|show`: reads what the local mail sink of `npm start` received
 * (.data/mail/, or MAIL_DIR). Output is built as text so tests can check it without a process.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { findStoredMail, readStoredMails, type Mail } from './lib/storedMails';
import { cliEnvironment } from '../config';
import { readLocalEnv } from './lib/localEnv';
import { projectRoot } from './lib/projectRoot';

export const defaultMailDir = path.join(projectRoot, '.data', 'mail');

export function mailDir(): string {
  return cliEnvironment(readLocalEnv()).optional('MAIL_DIR') ?? defaultMailDir;
}

export function mailListText(dir: string, opts: { json?: boolean; limit?: number } = {}): string {
  const mails = readStoredMails(dir).slice(-(opts.limit ?? 50));
  if (opts.json) return `${JSON.stringify(mails.map(summary))}\n`;
  if (mails.length === 0) return `no mail in ${dir} (npm start keeps the local sink's mail there)\n`;
  return (
    mails.map((m) => `${m.id}  ${m.receivedAt}  to ${m.to.join(', ')}  ${JSON.stringify(m.subject)}`).join('\n') + '\n'
  );
}

export function mailShowText(dir: string, id: string, opts: { json?: boolean } = {}): string {
  const mail = findStoredMail(dir, id);
  if (!mail) throw new Error(`no mail ${id} in ${dir} (see npm run gateway -- mail list)`);
  if (opts.json) return `${JSON.stringify(mail)}\n`;
  return [
    `id        ${mail.id}`,
    `received  ${mail.receivedAt}`,
    `from      ${mail.from}`,
    `to        ${mail.to.join(', ')}`,
    `subject   ${mail.subject}`,
    '',
    mail.text,
    '',
  ].join('\n');
}

function summary(m: Mail): Omit<Mail, 'text'> {
  const { text: _text, ...rest } = m;
  return rest;
}

export function mailCommand(command: string | undefined, argv: string[]): string | undefined {
  if (command === 'list') {
    const { values } = parseArgs({
      args: argv,
      options: { json: { type: 'boolean', default: false }, limit: { type: 'string' } },
      strict: true,
    });
    if (values.limit !== undefined && !/^[1-9]\d*$/.test(values.limit))
      throw new Error('--limit must be a positive whole number');
    return mailListText(mailDir(), {
      json: values.json,
      limit: values.limit === undefined ? undefined : Number(values.limit),
    });
  }
  if (command === 'show') {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { json: { type: 'boolean', default: false } },
      allowPositionals: true,
      strict: true,
    });
    if (positionals.length !== 1) throw new Error('mail show needs exactly one mail id');
    return mailShowText(mailDir(), positionals[0], { json: values.json });
  }
  return undefined;
}
