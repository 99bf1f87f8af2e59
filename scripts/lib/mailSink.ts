/**
 * A local mail sink: a real SMTP server (smtp-server) on 127.0.0.1 that accepts every message,
 * parses it (mailparser), keeps it in memory and, given a directory, writes it there as JSON
 * (`npm start` uses .data/mail/, read with `npm run gateway -- mail list|show`:
 * cli/lib/storedMails.ts). Development and tests send real SMTP to it; nothing leaves the machine. No TLS and no login: it listens on
 * loopback only. Files are readable by their owner only (they hold login codes).
 *
 * Recipients at `refused.invalid` (a domain that cannot exist, RFC 2606) are refused with 550, as
 * a real server refuses an unknown mailbox: that is how tests and developers see the FAILED path.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';
import type { Mail } from '../../cli/lib/storedMails';

export interface MailSink {
  url: string;
  port: number;
  messages: () => Mail[];
  waitFor: (predicate: (mail: Mail) => boolean, timeoutMs?: number) => Promise<Mail>;
  stop: () => Promise<void>;
}

/** Big enough for any mail we send; anything larger is refused (552) rather than buffered. */
const MAX_MESSAGE_BYTES = 1024 * 1024;
export const REFUSED_DOMAIN = 'refused.invalid';

export async function startMailSink(opts: { port: number; dir?: string }): Promise<MailSink> {
  const received: Mail[] = [];
  const listeners = new Set<(mail: Mail) => void>();
  if (opts.dir) fs.mkdirSync(opts.dir, { recursive: true, mode: 0o700 });

  const server = new SMTPServer({
    logger: false,
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    size: MAX_MESSAGE_BYTES,
    banner: 'Pix Gateway local mail sink',
    onRcptTo(address, _session, callback) {
      if (address.address.toLowerCase().endsWith(`@${REFUSED_DOMAIN}`))
        return callback(Object.assign(new Error('no such mailbox'), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          if (stream.sizeExceeded)
            return callback(Object.assign(new Error('message too large'), { responseCode: 552 }));
          const envelopeFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
          const mail: Mail = {
            id: mailId(),
            to: session.envelope.rcptTo.map((r) => r.address),
            from: displayAddress(parsed.from?.value[0]) ?? envelopeFrom,
            subject: parsed.subject ?? '',
            text: (parsed.text ?? '').replace(/\n$/, ''),
            receivedAt: new Date().toISOString(),
          };
          if (opts.dir)
            fs.writeFileSync(path.join(opts.dir, `${mail.id}.json`), `${JSON.stringify(mail, null, 2)}\n`, {
              mode: 0o600,
            });
          received.push(mail);
          for (const listener of listeners) listener(mail);
          callback();
        })
        .catch((err: unknown) => callback(err instanceof Error ? err : new Error(String(err))));
    },
  });
  // An SMTP client that disconnects mid-dialogue is its business, not a crash of the sink.
  server.on('error', () => undefined);

  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(opts.port, '127.0.0.1', () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  const port = (server.server.address() as AddressInfo).port;
  let stopped: Promise<void> | undefined;

  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages: () => [...received],
    waitFor: (predicate, timeoutMs = 20_000) => {
      const already = received.find(predicate);
      if (already) return Promise.resolve(already);
      return new Promise<Mail>((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(listener);
          reject(new Error(`no matching mail arrived at the sink within ${timeoutMs} ms`));
        }, timeoutMs);
        const listener = (mail: Mail) => {
          if (!predicate(mail)) return;
          clearTimeout(timer);
          listeners.delete(listener);
          resolve(mail);
        };
        listeners.add(listener);
      });
    },
    stop: () =>
      (stopped ??= new Promise<void>((resolve) => {
        // close() waits for open sessions (up to its own 30 s timeout): end them now.
        for (const connection of server.connections) connection.close();
        server.close(() => resolve());
      })),
  };
}

/** `Name <address>` (unquoted, as people write it), or the bare address. */
function displayAddress(a: { name?: string; address?: string } | undefined): string | undefined {
  if (!a?.address) return undefined;
  return a.name ? `${a.name} <${a.address}>` : a.address;
}

/** Sortable by arrival: `20250101T120000123Z-a1b2c3`. */
function mailId(): string {
  return `${new Date().toISOString().replace(/[-:.]/g, '')}-${crypto.randomBytes(3).toString('hex')}`;
}
