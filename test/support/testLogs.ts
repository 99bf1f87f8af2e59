/**
 * The test run's log directory (GATEWAY_TEST_LOG_DIR, made by scripts/test.ts): every process of
 * the stack writes its output there instead of the test output, and every secret issued during
 * the run is recorded there so scripts/test.ts can prove, after the suite, that none was logged.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { createLogger } from '../../core/logger';

export const ISSUED_SECRETS_DIR = 'issued-secrets';

export function testLogDir(): string | undefined {
  return process.env.GATEWAY_TEST_LOG_DIR || undefined;
}

/**
 * A logger made the way the stack's processes make theirs from config.ts (`log`): into the run's
 * log directory, at debug unless LOG_LEVEL says otherwise; silent outside `npm test`.
 */
export function testLogger(service: string): Logger {
  const dir = testLogDir();
  return createLogger(service, { level: process.env.LOG_LEVEL ?? (dir ? 'debug' : 'silent'), testLogDir: dir });
}

/** A file in the run's log directory (created on first use), or undefined outside `npm test`. */
export function testLogFile(name: string): string | undefined {
  const dir = testLogDir();
  if (!dir) return undefined;
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}

export function appendTestLog(name: string, line: string): void {
  const file = testLogFile(name);
  if (file) fs.appendFileSync(file, line.endsWith('\n') ? line : `${line}\n`);
}

/**
 * Records secrets (with what they are, for the audit's report) for the end-of-run audit. Kept in
 * the run's temporary log directory only; the audit deletes them once it has scanned.
 */
export function recordIssuedSecrets(kind: string, values: Iterable<string | null | undefined>): void {
  const dir = testLogDir();
  if (!dir) return;
  const list = [...values].filter((v): v is string => typeof v === 'string' && v.length > 0);
  if (list.length === 0) return;
  const target = path.join(dir, ISSUED_SECRETS_DIR);
  fs.mkdirSync(target, { recursive: true, mode: 0o700 });
  fs.writeFileSync(
    path.join(target, `${process.pid}-${crypto.randomUUID()}.json`),
    JSON.stringify({ kind, values: list }),
    { mode: 0o600 },
  );
}

/** Secret-looking fields of an API answer (`secret`, `clientSecret`, nested), recorded as issued. */
/**
 * An answer's body as the stack helpers hand it to tests: parsed JSON, or the text when it is not
 * JSON; any secret in it is recorded for the secrets audit.
 */
export function readAnswer(text: string): unknown {
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  recordSecretsIn(body);
  return body;
}

export function recordSecretsIn(body: unknown, kind = 'api answer'): void {
  const found: string[] = [];
  const walk = (v: unknown, depth: number) => {
    if (depth > 6 || v === null || typeof v !== 'object') return;
    for (const [k, child] of Object.entries(v as Record<string, unknown>)) {
      if (typeof child === 'string' && /secret/i.test(k) && !/expires/i.test(k)) found.push(child);
      else walk(child, depth + 1);
    }
  };
  walk(body, 0);
  recordIssuedSecrets(kind, found);
}
