/**
 * Local development secrets, generated once into .data/ (git-ignored) and reused, so a restart
 * keeps reading the client secrets it encrypted before. Production sets these in the environment.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from './tools';

export interface LocalSecrets {
  CREDENTIALS_ENCRYPTION_KEY: string;
  PROVIDER_API_KEY: string;
  PROVIDER_CALLBACK_SECRET: string;
}

/**
 * The local stack's folder: .data/ in the checkout, or GATEWAY_DATA_DIR (a second stack beside
 * the first, a test's own): `npm start` keeps its data there and the CLI reads its environment there.
 */
export function localDataDir(): string {
  return path.resolve(projectRoot, process.env.GATEWAY_DATA_DIR || '.data');
}

const localEnvFile = () => path.join(localDataDir(), 'local-env.json');

export function generateSecrets(): LocalSecrets {
  return {
    CREDENTIALS_ENCRYPTION_KEY: crypto.randomBytes(32).toString('hex'),
    PROVIDER_API_KEY: `sbx_key_${crypto.randomBytes(16).toString('hex')}`,
    PROVIDER_CALLBACK_SECRET: crypto.randomBytes(32).toString('hex'),
  };
}

export function loadOrCreateLocalSecrets(): LocalSecrets {
  const file = path.join(localDataDir(), 'local-secrets.json');
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as LocalSecrets;
  const secrets = generateSecrets();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}

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
