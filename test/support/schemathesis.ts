/**
 * schemathesis, the schema fuzzer we did not write: pinned and installed into a git-ignored
 * virtualenv by scripts/lib/schemathesis.sh on first use, run as a child process (never blocking
 * the event loop: the servers it fuzzes live in the test's own process). Its whole output is kept
 * in `logFile`; a failure shows the summary (failures with their reproduction commands).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');

export function runSchemathesis(args: string[], logFile: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [path.join(root, 'scripts', 'lib', 'schemathesis.sh'), ...args], {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const keep = (c: Buffer) => {
      output += c.toString('utf8');
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', reject);
    child.once('close', (code) => {
      fs.writeFileSync(logFile, output);
      resolve({ code: code ?? 1, output });
    });
  });
}

/** The run's verdict for a test: throws with the summary unless schemathesis exited 0. */
export function expectSchemathesisPassed(result: { code: number; output: string }, logFile: string): void {
  const { code, output } = result;
  const summaryAt = output.search(/=+ (FAILURES|SUMMARY) =+/);
  const shown = summaryAt >= 0 ? output.slice(summaryAt) : output.slice(-6_000);
  if (code !== 0)
    throw new Error(`schemathesis exited with ${code}; full output in ${logFile}\n\n${shown.slice(0, 20_000)}`);
  if (!/No issues found|passed/i.test(output))
    throw new Error(`schemathesis ran no test; full output in ${logFile}\n\n${shown.slice(0, 6_000)}`);
}
