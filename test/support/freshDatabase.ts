/** Databases of a test's own on the run's PostgreSQL, dropped with the run's when `npm test` ends. */
import crypto from 'node:crypto';
import { Client as PgClient } from 'pg';
import { ensureDatabase } from '../../db/embeddedPostgres';

/**
 * A database of a stack's (or a test file's) own: a copy of the run's migrated template (scripts/test.ts makes it
 * once; CREATE DATABASE … TEMPLATE copies files, milliseconds) or, outside `npm test`, an empty
 * one the migrations then fill.
 */
export async function freshDatabase(baseUrl: string, template: string | undefined): Promise<string> {
  const server = new URL(baseUrl);
  const name = `${server.pathname.slice(1)}_${crypto.randomBytes(4).toString('hex')}`;
  server.pathname = '/postgres';
  if (template) await createFromTemplate(server.toString(), name, template);
  else await ensureDatabase(server.toString(), name);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function createFromTemplate(serverUrl: string, name: string, template: string): Promise<void> {
  const client = new PgClient({ connectionString: serverUrl });
  await client.connect();
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
        return;
      } catch (err) {
        // 55006: the template is being copied by another worker's CREATE DATABASE at this instant.
        if ((err as { code?: string }).code !== '55006' || attempt >= 20) throw err;
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  } finally {
    await client.end();
  }
}
