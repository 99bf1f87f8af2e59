/**
 * Local development secrets, generated once into .data/ (git-ignored) and reused, so a restart
 * keeps reading the client secrets it encrypted before. Production sets these in the environment.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { localDataDir } from '../../cli/lib/localEnv';

export interface LocalSecrets {
  CREDENTIALS_ENCRYPTION_KEY: string;
  PROVIDER_API_KEY: string;
  PROVIDER_CALLBACK_SECRET: string;
}

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
