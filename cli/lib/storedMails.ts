/**
 * The mails the local mail sink (scripts/lib/mailSink.ts) wrote into a folder, one JSON file each
 * (`npm start` uses .data/mail/): what `npm run gateway -- mail list|show` reads.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface Mail {
  id: string;
  to: string[];
  from: string;
  subject: string;
  text: string;
  receivedAt: string;
}

/** Mails written by a sink into `dir`, oldest first (the CLI's `mail list`). */
export function readStoredMails(dir: string): Mail[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .flatMap((f) => {
      try {
        return [JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Mail];
      } catch {
        return [];
      }
    });
}

/** One stored mail by id, or by an unambiguous prefix / the id's random suffix (`mail show`). */
export function findStoredMail(dir: string, id: string): Mail | undefined {
  const mails = readStoredMails(dir);
  const exact = mails.find((m) => m.id === id);
  if (exact) return exact;
  const matches = mails.filter((m) => m.id.startsWith(id) || m.id.endsWith(`-${id}`));
  return matches.length === 1 ? matches[0] : undefined;
}
