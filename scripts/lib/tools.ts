/** Paths of the Temporal tooling installed by scripts/ensure-tools.sh (run it first). */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from '../../cli/lib/projectRoot';

export const temporalCliPath = path.join(projectRoot, '.tools', 'bin', 'temporal');
export const temporalTestServerPath = path.join(projectRoot, '.tools', 'temporal-test-server', 'run.sh');

export type Tool = 'cli' | 'test-server' | 'server' | 'ui' | 'all';

export function ensureTools(...which: Tool[]): void {
  execFileSync('bash', [path.join(projectRoot, 'scripts', 'ensure-tools.sh'), ...(which.length ? which : ['all'])], {
    stdio: 'inherit',
  });
}
