/**
 * Structured JSON logs. Secrets never reach a log line: known secret-bearing fields and headers
 * are redacted by path, wherever they appear in logged objects. Loggers are made by the
 * composition roots (api/server.ts, workers/main.ts, the CLI, test set-ups) from config.ts's
 * `log` and handed down through deps: nothing here reads the environment, and no module makes
 * its own logger when it is imported.
 */
import pino, { type Logger } from 'pino';

export const redactedPaths = [
  'clientSecret',
  '*.clientSecret',
  'secret',
  '*.secret',
  '*.*.secret',
  'password',
  '*.password',
  'token',
  '*.token',
  'accessToken',
  'refreshToken',
  'apiKey',
  '*.apiKey',
  'req.headers.authorization',
  'req.headers["x-client-secret"]',
  'req.headers["x-gateway-signature"]',
  'req.headers["x-provider-signature"]',
  'req.headers["gateway-signature"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-client-secret"]',
  'headers["x-gateway-signature"]',
  'headers["x-provider-signature"]',
];

export interface LogOptions {
  /** config.log.level; default info. */
  level?: string;
  /** config.log.testLogDir: the test run's log directory; lines go to a file there. */
  testLogDir?: string | null;
  /** Where lines go instead (tests that read them); default stdout. */
  destination?: pino.DestinationStream;
}

export function createLogger(service: string, options: LogOptions = {}): Logger {
  // Under `npm test` logs go to a file in the run's log directory, never to the test output:
  // failures stay readable, and the secrets audit scans every line written.
  const destination = options.destination ?? (options.testLogDir ? testLogDestination(options.testLogDir) : undefined);
  return pino(
    { name: service, level: options.level ?? 'info', redact: { paths: redactedPaths, censor: '[REDACTED]' } },
    destination,
  );
}

const testDestinations = new Map<string, pino.DestinationStream>();

function testLogDestination(dir: string): pino.DestinationStream {
  // One file per process; synchronous so the last lines before a crash or exit are kept.
  let destination = testDestinations.get(dir);
  if (!destination) {
    destination = pino.destination({ dest: `${dir}/pino-${process.pid}.log`, sync: true, mkdir: true });
    testDestinations.set(dir, destination);
  }
  return destination;
}
