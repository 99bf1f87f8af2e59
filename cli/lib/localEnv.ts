/**
 * The running local stack's environment, local-env.json in the stack's folder (.data/, or
 * GATEWAY_DATA_DIR: a second stack beside the first, a test's own). `npm start` writes it
 * (scripts/start.ts) and the CLI reads it, so `npm run gateway` reaches the same database,
 * Temporal and sandbox without being told. Production sets these in the environment.
 */
import fs from 'node:fs';
import path from 'node:path';
import { gatewayDataDir } from '../../config';
import { projectRoot } from './projectRoot';

/** The local stack's folder: `npm start` keeps its data there and the CLI reads its environment there. */
export function localDataDir(): string {
  return gatewayDataDir(projectRoot);
}

const localEnvFile = () => path.join(localDataDir(), 'local-env.json');

/** The running stack's environment, so `npm run gateway` can reach the same database and sandbox. */
export function writeLocalEnv(env: Record<string, string>): void {
  fs.mkdirSync(path.dirname(localEnvFile()), { recursive: true });
  fs.writeFileSync(localEnvFile(), JSON.stringify(env, null, 2), { mode: 0o600 });
}

export function readLocalEnv(): Record<string, string> {
  return fs.existsSync(localEnvFile())
    ? (JSON.parse(fs.readFileSync(localEnvFile(), 'utf8')) as Record<string, string>)
    : {};
}
