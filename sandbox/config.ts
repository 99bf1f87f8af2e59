/**
 * The sandbox server's settings from the environment. The control routes (/sandbox/*) pay any
 * charge and switch faults on, so outside development and tests they need a token.
 */
import path from 'node:path';

export interface SandboxConfig {
  apiKey: string;
  callbackSecret: string;
  port: number;
  host: string;
  /** Required unless NODE_ENV is development or test. */
  controlToken: string | undefined;
  /** Where the provider's state lives across restarts. */
  dataFile: string;
  /** SANDBOX_OPEN_INFRACTION_RATE: probability (0..1) that a payment gets a Pix infraction (MED). */
  openInfractionRate: number;
}

const OPEN_CONTROL_ENVIRONMENTS = new Set(['development', 'test']);
export const DEFAULT_SANDBOX_DATA_FILE = path.join(__dirname, '..', '.data', 'sandbox', 'state.jsonl');

export function readSandboxConfig(env: NodeJS.ProcessEnv): SandboxConfig {
  const missing = [!env.PROVIDER_API_KEY && 'PROVIDER_API_KEY', !env.PROVIDER_CALLBACK_SECRET && 'PROVIDER_CALLBACK_SECRET'].filter(Boolean);
  const controlToken = env.SANDBOX_CONTROL_TOKEN || undefined;
  if (!controlToken && !OPEN_CONTROL_ENVIRONMENTS.has(env.NODE_ENV ?? '')) {
    missing.push('SANDBOX_CONTROL_TOKEN (required unless NODE_ENV is development or test)');
  }
  if (missing.length > 0) throw new Error(`missing required environment variable(s): ${missing.join(', ')}`);
  const port = Number(env.SANDBOX_PORT ?? 4010);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('SANDBOX_PORT must be an integer 0..65535');
  return {
    apiKey: env.PROVIDER_API_KEY as string,
    callbackSecret: env.PROVIDER_CALLBACK_SECRET as string,
    port,
    host: env.SANDBOX_HOST ?? '127.0.0.1',
    controlToken,
    dataFile: env.SANDBOX_DATA_FILE || DEFAULT_SANDBOX_DATA_FILE,
    openInfractionRate: readRate(env.SANDBOX_OPEN_INFRACTION_RATE),
  };
}

function readRate(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 0;
  const rate = Number(raw);
  if (!(rate >= 0 && rate <= 1)) throw new Error('SANDBOX_OPEN_INFRACTION_RATE must be a number between 0 and 1');
  return rate;
}
