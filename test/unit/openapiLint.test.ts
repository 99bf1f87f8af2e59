/**
 * The generated API document through two linters we did not write, as an outside client would
 * run them: Redocly (`redocly lint`, redocly.yaml: `recommended` plus stricter rules) and
 * Spectral (`spectral lint`, .spectral.yaml: `spectral:oas` plus stricter rules), both from
 * node_modules/.bin. Fails on any error, and on any warning not in ACCEPTED below (so a new one
 * is either fixed or accepted here with its reason; an accepted one that went away must be removed).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildOpenApiDocument } from '../../api/openapi/document';

jest.setTimeout(120_000);

const root = path.resolve(__dirname, '..', '..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);

/** `linter rule pointer` → why it stays. */
const ACCEPTED: Record<string, string> = {
  'redocly operation-4xx-response #/paths/~1healthz/get/responses':
    'GET /healthz takes no input and is exempt from the rate limit: it has no client error to document.',
  'redocly operation-2xx-response #/paths/~1c~1{checkoutId}~1simulate-payment/post/responses':
    "The hosted page's form POST succeeds with 303 See Other back to the page (a browser form, not an API call).",
};

let dir: string;
let file: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-lint-'));
  file = path.join(dir, 'openapi.json');
  fs.writeFileSync(file, JSON.stringify(buildOpenApiDocument(), null, 2));
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function run(command: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      {
        cwd: root,
        maxBuffer: 64 * 1024 * 1024,
        // No telemetry or update check: the run stays offline and quiet.
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

interface Problem {
  linter: string;
  rule: string;
  pointer: string;
  severity: 'error' | 'warning';
  message: string;
}

const key = (p: Problem) => `${p.linter} ${p.rule} ${p.pointer}`;
const show = (p: Problem) => `${p.severity} ${key(p)}: ${p.message}`;

/** Every problem is either an error (never accepted) or a warning in ACCEPTED; every ACCEPTED one still happens. */
function expectOnlyAccepted(linter: string, problems: Problem[]): void {
  expect(problems.filter((p) => p.severity === 'error').map(show)).toEqual([]);
  expect(problems.filter((p) => !ACCEPTED[key(p)]).map(show)).toEqual([]);
  const stale = Object.keys(ACCEPTED).filter((k) => k.startsWith(`${linter} `) && !problems.some((p) => key(p) === k));
  expect(stale).toEqual([]);
}

it('passes Redocly lint (redocly.yaml) with no error and only the accepted warnings', async () => {
  const { code, stdout, stderr } = await run(bin('redocly'), [
    'lint',
    file,
    '--config',
    path.join(root, 'redocly.yaml'),
    '--format=json',
  ]);
  let report: {
    totals: { errors: number; warnings: number };
    problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
  };
  try {
    report = JSON.parse(stdout);
  } catch {
    throw new Error(`redocly gave no JSON report (exit ${code}):\n${stdout.slice(0, 2000)}\n${stderr.slice(-4000)}`);
  }
  const problems = report.problems.map((p) => ({
    linter: 'redocly',
    rule: p.ruleId,
    pointer: p.location[0]?.pointer ?? '',
    severity: p.severity === 'error' ? ('error' as const) : ('warning' as const),
    message: p.message,
  }));
  expectOnlyAccepted('redocly', problems);
  expect(report.totals.errors).toBe(0);
  expect(code).toBe(0);
});

it('passes Spectral lint (.spectral.yaml, spectral:oas) with no error and only the accepted warnings', async () => {
  // The JSON report goes to a file: stdout also carries a summary line.
  const output = path.join(dir, 'spectral.json');
  const { code, stdout, stderr } = await run(bin('spectral'), [
    'lint',
    file,
    '--ruleset',
    path.join(root, '.spectral.yaml'),
    '--format',
    'json',
    '--output',
    output,
    '--fail-severity',
    'error',
  ]);
  let results: { code: string; severity: number; message: string; path: string[] }[];
  try {
    results = JSON.parse(fs.readFileSync(output, 'utf8'));
  } catch {
    throw new Error(`spectral gave no JSON report (exit ${code}):\n${stdout.slice(0, 2000)}\n${stderr.slice(-4000)}`);
  }
  const problems = results.map((r) => ({
    linter: 'spectral',
    rule: r.code,
    pointer: `#/${r.path.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`,
    // 0 error, 1 warning, 2 information, 3 hint: anything but an error must be accepted too.
    severity: r.severity === 0 ? ('error' as const) : ('warning' as const),
    message: r.message,
  }));
  expectOnlyAccepted('spectral', problems);
  expect({ code, stderr: code === 0 ? '' : stderr.slice(-2000) }).toEqual({ code: 0, stderr: '' });
});
