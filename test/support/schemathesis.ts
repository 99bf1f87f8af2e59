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

/** How long a run may go without a request reaching the API before it counts as stuck. */
export const SCHEMATHESIS_STALL_MS = 5 * 60_000;

/**
 * Runs schemathesis with `args`. With `progress` (a count of the requests the API received, e.g.
 * the signing proxy's), the run's budget follows its progress instead of the clock: it is stopped
 * and fails only when no request arrived for `stallMs`, however long the whole run takes on a
 * slow host (schemathesis prints nothing between phases when its output is not a terminal, so
 * its output cannot tell). The test's own jest timeout is then only a ceiling.
 */
export function runSchemathesis(
  args: string[],
  logFile: string,
  opts: { progress?: () => number; stallMs?: number } = {},
): Promise<{ code: number; output: string }> {
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
    const stallMs = opts.stallMs ?? SCHEMATHESIS_STALL_MS;
    let seen = opts.progress?.() ?? 0;
    let movedAt = Date.now();
    let stalled = false;
    const watchdog = opts.progress
      ? setInterval(() => {
          const now = opts.progress!();
          if (now !== seen) {
            seen = now;
            movedAt = Date.now();
          } else if (Date.now() - movedAt > stallMs && !stalled) {
            stalled = true;
            output += `\n[test] no request reached the API for ${stallMs / 1000} s: schemathesis stopped as stuck\n`;
            child.kill('SIGTERM');
          }
        }, 5_000)
      : undefined;
    child.once('error', (err) => {
      clearInterval(watchdog);
      reject(err);
    });
    child.once('close', (code) => {
      clearInterval(watchdog);
      fs.writeFileSync(logFile, output);
      resolve({ code: stalled ? 1 : (code ?? 1), output });
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
