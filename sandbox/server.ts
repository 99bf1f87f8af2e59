/**
 * Sandbox PSP entrypoint: `npx tsx sandbox/server.ts`.
 * Env: SANDBOX_PORT (4010), SANDBOX_HOST (127.0.0.1), PROVIDER_API_KEY and
 * PROVIDER_CALLBACK_SECRET (both required). The key and secret are never logged.
 */
import pino from 'pino';
import { createSandboxApp } from './app';

const SHUTDOWN_GRACE_MS = 5_000;

function main(): void {
  const logger = pino({ name: 'pix-sandbox' });
  const apiKey = process.env.PROVIDER_API_KEY;
  const callbackSecret = process.env.PROVIDER_CALLBACK_SECRET;
  const missing = [!apiKey && 'PROVIDER_API_KEY', !callbackSecret && 'PROVIDER_CALLBACK_SECRET'].filter(Boolean);
  if (!apiKey || !callbackSecret) {
    console.error(`pix-sandbox: missing required environment variable(s): ${missing.join(', ')}`);
    process.exit(1);
  }
  const port = Number(process.env.SANDBOX_PORT ?? 4010);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`pix-sandbox: SANDBOX_PORT must be an integer 0..65535`);
    process.exit(1);
  }
  const host = process.env.SANDBOX_HOST ?? '127.0.0.1';

  const sandbox = createSandboxApp({ apiKey, callbackSecret, logger });
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
