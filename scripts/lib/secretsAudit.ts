/**
 * After the suite: every secret issued during the run (recorded by test/support/testLogs.ts under
 * <logDir>/issued-secrets/) must appear in no file of the run's log directory: the stack's pino
 * logs, the Temporal SDK's and dev server's output, worker processes, schemathesis, jest's own
 * output. The recorded secrets are deleted once scanned.
 */
import fs from 'node:fs';
import path from 'node:path';

export const ISSUED_SECRETS_DIR = 'issued-secrets';
/** Shorter values would match by chance; every secret the stack issues is far longer. */
const MIN_LENGTH = 12;

export interface Leak {
  kind: string;
  file: string;
  line: number;
  /** The secret's first characters only: the report itself must not leak it. */
  prefix: string;
}

export interface AuditResult {
  secrets: number;
  files: number;
  leaks: Leak[];
}

export function auditSecrets(logDir: string): AuditResult {
  const secretsDir = path.join(logDir, ISSUED_SECRETS_DIR);
  const secrets = new Map<string, string>(); // value → kind
  if (fs.existsSync(secretsDir)) {
    for (const name of fs.readdirSync(secretsDir)) {
      const { kind, values } = JSON.parse(fs.readFileSync(path.join(secretsDir, name), 'utf8')) as {
        kind: string;
        values: string[];
      };
      for (const v of values) if (v.length >= MIN_LENGTH && !secrets.has(v)) secrets.set(v, kind);
    }
  }
  const files = listFiles(logDir).filter((f) => !f.startsWith(secretsDir + path.sep));
  const leaks: Leak[] = [];
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    if (![...secrets.keys()].some((s) => text.includes(s))) continue;
    text.split('\n').forEach((line, i) => {
      for (const [value, kind] of secrets) {
        if (line.includes(value))
          leaks.push({ kind, file: path.relative(logDir, file), line: i + 1, prefix: value.slice(0, 4) });
      }
    });
  }
  fs.rmSync(secretsDir, { recursive: true, force: true });
  return { secrets: secrets.size, files: files.length, leaks };
}

function listFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? listFiles(full) : e.isFile() ? [full] : [];
  });
}
