/**
 * The operator CLI (`gateway`) as an operator runs it: `node dist/cli/gateway.js` in the
 * production build (scripts/lib/productionBuild.ts), not `tsx cli/gateway.ts`. Under tsx every
 * call is two Node processes and a TypeScript transform before the command runs (about 2 CPU
 * seconds each; the dashboard's operator test made eleven calls and ran out of its 90 s on a
 * loaded host); the built CLI starts in a fraction of that. Asynchronous, like every tool a test
 * runs (test/support/externalTools.ts): the API under test may live in the test's own process.
 *
 * `npm test` makes the build beside the tests; a file waits for it in a hook of its own with
 * BUILD_WAIT_MS, so no test's budget counts the build.
 */
import { productionBuildDir } from './builtStack';
import { runToolStatus, type ToolResult } from './externalTools';

/** The longest a hook waits for the runner's production build (productionBuildDir's own limit is 10 minutes). */
export const BUILD_WAIT_MS = 15 * 60_000;

/** One CLI call's limit: a loaded host starts Node and connects to PostgreSQL in a few seconds. */
const CALL_TIMEOUT_MS = 5 * 60_000;

export interface OperatorCli {
  /** Runs `gateway <args>` with `env` over this process's environment; its status and output. */
  run: (args: string[], env?: Record<string, string | undefined>) => Promise<ToolResult>;
}

/** Waits for the production build (call it in a beforeAll with BUILD_WAIT_MS) and hands back its CLI. */
export async function builtOperatorCli(): Promise<OperatorCli> {
  const dir = await productionBuildDir();
  return {
    run: (args, env = {}) =>
      runToolStatus(process.execPath, ['dist/cli/gateway.js', ...args], {
        cwd: dir,
        env: { ...process.env, ...env },
        timeoutMs: CALL_TIMEOUT_MS,
      }),
  };
}
