/**
 * The one-time installs some test files need besides the Temporal tooling: Debian's poppler and
 * zbar tools, Debian's Chromium, and the schemathesis and moto virtualenvs (PyPI). `npm test`
 * makes them in its set-up phase, beside the production build and before jest starts, so no
 * test's timed budget pays for an `apt-get` or a `pip install` on a machine that never ran the
 * suite. Each script is a no-op when its tool is already there; the test files still call it
 * themselves (`--ensure`), so a file run by plain `npx jest` installs what it needs on first use.
 *
 * When the run names test files (`npm test -- test/unit/x.test.ts`), only the tools those files
 * need are made; any other jest argument (a flag, a project) makes them all.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../cli/lib/projectRoot';

export interface TestTool {
  name: string;
  /** bash script under scripts/lib, and its arguments. */
  script: string;
  args: string[];
  /** The test files that use it (paths from the checkout, `/` separated). */
  usedBy: RegExp;
  /** Installs with apt-get: run one at a time (dpkg takes one lock for the machine). */
  apt: boolean;
}

export const TEST_TOOLS: TestTool[] = [
  {
    name: 'Debian tools (poppler-utils, zbar-tools)',
    script: 'debianTools.sh',
    args: ['--ensure'],
    usedBy:
      /^test\/(unit\/(boletoPdf|qrPng)|integration\/(boletoCharges|receipts|receiptVerify|enrolments)|browser\/checkoutPage)\.test\.ts$/,
    apt: true,
  },
  { name: 'Chromium', script: 'chromium.sh', args: ['--ensure'], usedBy: /^test\/browser\//, apt: true },
  {
    name: 'schemathesis (virtualenv)',
    script: 'schemathesis.sh',
    args: ['--ensure'],
    usedBy: /^test\/(integration\/schemathesis|sandbox\/pixApiConformance)\.test\.ts$/,
    apt: false,
  },
  {
    name: 'moto (virtualenv)',
    script: 'motoServer.sh',
    args: ['--ensure'],
    usedBy: /^test\/integration\/avatarS3\.test\.ts$/,
    apt: false,
  },
];

/** Every test file of the suite, from the checkout, `/` separated. */
export function testFiles(root = projectRoot): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.test.ts')) out.push(path.relative(root, full).split(path.sep).join('/'));
    }
  };
  walk(path.join(root, 'test'));
  return out.sort();
}

/**
 * The tools a run with these jest arguments needs. Positional arguments are jest's path patterns
 * (regular expressions matched against each test file's path); a flag makes the answer "all",
 * since it may select projects or take a value that looks like a pattern.
 */
export function toolsFor(jestArgs: string[], root = projectRoot): TestTool[] {
  if (jestArgs.length === 0 || jestArgs.some((a) => a.startsWith('-'))) return TEST_TOOLS;
  const patterns = jestArgs.map((a) => {
    try {
      return new RegExp(a);
    } catch {
      return undefined;
    }
  });
  if (patterns.some((p) => p === undefined)) return TEST_TOOLS;
  const selected = testFiles(root).filter((file) =>
    patterns.some((p) => p!.test(file) || p!.test(path.join(root, file))),
  );
  return TEST_TOOLS.filter((tool) => selected.some((file) => tool.usedBy.test(file)));
}

export interface ToolsResult {
  ok: boolean;
  /** Per tool: its seconds and, when it failed, its output. */
  results: { name: string; seconds: number; error?: string }[];
}

/**
 * Runs the tools' scripts as child processes (never blocking: PostgreSQL and the build go on
 * meanwhile): the apt-get ones one after the other, the virtualenvs beside them. Their output
 * goes to `logFile`, and is returned when one fails.
 */
export async function ensureTestTools(tools: TestTool[], logFile: string): Promise<ToolsResult> {
  const results: ToolsResult['results'] = [];
  const run = (tool: TestTool) =>
    new Promise<void>((resolve) => {
      const started = Date.now();
      const child = spawn('bash', [path.join(projectRoot, 'scripts', 'lib', tool.script), ...tool.args], {
        cwd: projectRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      const keep = (c: Buffer) => (output += c.toString('utf8'));
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      const done = (code: number | null, error?: string) => {
        fs.appendFileSync(logFile, `== ${tool.name} (exit ${code})\n${output}\n`);
        const seconds = (Date.now() - started) / 1000;
        results.push(code === 0 ? { name: tool.name, seconds } : { name: tool.name, seconds, error: error ?? output });
        resolve();
      };
      child.once('error', (err) => done(null, err.message));
      child.once('close', (code) => done(code));
    });
  const apt = tools.filter((t) => t.apt);
  await Promise.all([
    apt.reduce((chain, tool) => chain.then(() => run(tool)), Promise.resolve()),
    ...tools.filter((t) => !t.apt).map(run),
  ]);
  return { ok: results.every((r) => !r.error), results };
}
