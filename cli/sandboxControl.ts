/** The operator's CLI calling the sandbox's control routes (the "payer" buttons): one way to reach them. */
import { cliEnvironment } from '../config';
import { readLocalEnv } from './lib/localEnv';

/**
 * POSTs `body` to the sandbox's control route `path` (under /sandbox) and answers its text; a
 * non-2xx throws. Several paths: the next is tried while the sandbox answers 404 (a subject it may
 * know under either of two names).
 */
export async function postSandboxControl(path: string | string[], body: Record<string, unknown>): Promise<string> {
  const cli = cliEnvironment(readLocalEnv());
  const base = cli.optional('SANDBOX_BASE_URL') ?? 'http://127.0.0.1:4010';
  // Outside development the sandbox's control routes want this token (never printed).
  const token = cli.optional('SANDBOX_CONTROL_TOKEN');
  const paths = typeof path === 'string' ? [path] : path;
  for (const [i, each] of paths.entries()) {
    const res = await fetch(`${base}/sandbox${each}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status === 404 && i < paths.length - 1) continue;
    if (!res.ok) throw new Error(`sandbox answered ${res.status}: ${text}`);
    return text;
  }
  throw new Error('postSandboxControl: no path given');
}
