/**
 * Sandbox PSP entrypoint: `npx tsx sandbox/server.ts`.
 * Env: SANDBOX_PORT (4010), SANDBOX_HOST (127.0.0.1), PROVIDER_API_KEY and
 * PROVIDER_CALLBACK_SECRET (both required), SANDBOX_CONTROL_TOKEN (required unless NODE_ENV is
 * development or test), SANDBOX_DATA_FILE (.data/sandbox/state.jsonl). Secrets are never logged.
 */
import pino from 'pino';
import { createSandboxApp } from './app';
import { readSandboxConfig, type SandboxConfig } from './config';

const SHUTDOWN_GRACE_MS = 5_000;

function main(): void {
  const logger = pino({ name: 'pix-sandbox' });
  let config: SandboxConfig;
  try {
    config = readSandboxConfig(process.env);
  } catch (err) {
    console.error(`pix-sandbox: ${(err as Error).message}`);
    process.exit(1);
  }
  const { apiKey, callbackSecret, port, host, controlToken, dataFile, openInfractionRate } = config;
  if (!controlToken) logger.warn('control routes (/sandbox/*) are open: set SANDBOX_CONTROL_TOKEN to require a token');

  const sandbox = createSandboxApp({ apiKey, callbackSecret, logger, controlToken, dataFile, openInfractionRate });
  const server = sandbox.app.listen(port, host, (err?: Error) => {
    if (err) {
      logger.fatal({ err }, 'cannot listen');
      process.exit(1);
    }
    logger.info({ host, port }, 'pix sandbox listening');
  });

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    sandbox.stop();
    server.close(() => process.exit(0));
    server.closeIdleConnections();
    // Hung (fault-injected) or slow requests must not block shutdown forever.
    setTimeout(() => {
      server.closeAllConnections();
      process.exit(0);
    }, SHUTDOWN_GRACE_MS).unref();
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main();
