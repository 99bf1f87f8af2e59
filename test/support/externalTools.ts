/**
 * Runs a tool we did not write (pdftotext, pdftoppm, zbarimg, the operator CLI) without blocking
 * the event loop. The stack under test runs in the test's own process: a synchronous child call
 * of a few seconds stalls its API and worker, and an HTTP keep-alive socket that went idle
 * meanwhile is closed by the server right as the test's next request goes out on it (ECONNRESET).
 */
import { execFile } from 'node:child_process';

export interface ToolResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The tool's output; throws when it exits non-zero (with its stderr). */
export async function runTool(
  command: string,
  args: string[],
  opts: { input?: Buffer; timeoutMs?: number; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<string> {
  const result = await runToolStatus(command, args, opts);
  if (result.status !== 0) throw new Error(`${command} exited with ${result.status}: ${result.stderr.slice(0, 2_000)}`);
  return result.stdout;
}

/** The tool's exit status and output, whatever the status (for tests of a CLI's refusals). */
export function runToolStatus(
  command: string,
  args: string[],
  opts: { input?: Buffer; timeoutMs?: number; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<ToolResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      command,
      args,
      {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
        timeout: opts.timeoutMs ?? 60_000,
        env: opts.env,
        cwd: opts.cwd,
      },
      (err, stdout, stderr) => {
        if (err && typeof (err as { code?: unknown }).code !== 'number') return reject(err);
        resolve({ status: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
    if (opts.input) child.stdin?.end(opts.input);
    else child.stdin?.end();
  });
}
