/**
 * Sandbox PSP entrypoint: `npx tsx sandbox/server.ts`, or from the build `node dist/sandbox/server.js`.
 * Env: SANDBOX_PORT (4010), SANDBOX_HOST (127.0.0.1), PROVIDER_API_KEY and
 * PROVIDER_CALLBACK_SECRET (both required), SANDBOX_CONTROL_TOKEN (required unless NODE_ENV is
 * development or test), SANDBOX_DATA_FILE (.data/sandbox/state.jsonl); API Pix:
 * SANDBOX_PIX_CLIENT_ID and SANDBOX_PIX_CLIENT_SECRET (development values unless NODE_ENV is
 * neither development nor test, then required), SANDBOX_PIX_TOKEN_TTL_SECONDS (3600),
 * SANDBOX_PIX_KEYS, SANDBOX_LOCATION_HOST; Efí: SANDBOX_EFI_SEND_SETTLE_MS (150),
 * SANDBOX_EFI_OPENING_BALANCE_CENTS (R$ 1 billion); TLS: SANDBOX_TLS_CERT_FILE and SANDBOX_TLS_KEY_FILE
 * (https), plus SANDBOX_TLS_CLIENT_CA_FILE (mutual TLS) and its key SANDBOX_TLS_CLIENT_CA_KEY_FILE
 * (the CA signs each new account's client certificate). Secrets are never logged.
 */
import pino from 'pino';
import { createSandboxApp } from './app';
import { readSandboxConfig, type SandboxConfig } from './config';
import { listenSandbox } from './listen';
import { stopOnSignals } from '../core/shutdown';

const SHUTDOWN_GRACE_MS = 5_000;

async function main(): Promise<void> {
  const logger = pino({ name: 'pix-sandbox' });
  let config: SandboxConfig;
  try {
    config = readSandboxConfig(process.env);
  } catch (err) {
    console.error(`pix-sandbox: ${(err as Error).message}`);
    process.exit(1);
  }
  const { apiKey, callbackSecret, port, host, controlToken, dataFile, openInfractionRate, tls } = config;
  if (!controlToken) logger.warn('control routes (/sandbox/*) are open: set SANDBOX_CONTROL_TOKEN to require a token');
  if (tls?.clientCa && !tls.clientCaKey)
    logger.warn(
      "accounts made by POST /sandbox/accounts get certificates the handshake refuses: set SANDBOX_TLS_CLIENT_CA_KEY_FILE (the client CA's key) to sign them with the client CA",
    );

  const sandbox = createSandboxApp({
    apiKey,
    callbackSecret,
    logger,
    controlToken,
    dataFile,
    openInfractionRate,
    pixClientId: config.pixClientId,
    pixClientSecret: config.pixClientSecret,
    pixTokenTtlSeconds: config.pixTokenTtlSeconds,
    pixReceivingKeys: config.pixReceivingKeys,
    locationHost: config.locationHost,
    efiSendSettleMs: config.efiSendSettleMs,
    efiOpeningBalanceCents: config.efiOpeningBalanceCents,
    ...(tls?.clientCa && tls.clientCaKey ? { accountCa: { cert: tls.clientCa, key: tls.clientCaKey } } : {}),
  });
  let server: Awaited<ReturnType<typeof listenSandbox>>['server'];
  try {
    // The signing key of the payload locations, before the first payer asks.
    await sandbox.prepare();
    ({ server } = await listenSandbox(sandbox.app, { host, port, tls }));
  } catch (err) {
    logger.fatal({ err }, 'cannot start');
    process.exit(1);
  }
  // Before the "listening" line: whoever reads it may signal at once (workers/main.ts says why).
  stopOnSignals(
    () => {
      sandbox.stop();
      server.close(() => process.exit(0));
      server.closeIdleConnections();
      // Hung (fault-injected) or slow requests must not block shutdown forever.
      setTimeout(() => {
        server.closeAllConnections();
        process.exit(0);
      }, SHUTDOWN_GRACE_MS).unref();
    },
    { logger },
  );
  logger.info({ host, port, tls: tls ? (tls.clientCa ? 'mutual' : 'server') : 'off' }, 'pix sandbox listening');
}

void main();
