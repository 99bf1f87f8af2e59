/**
 * Structured JSON logs. Secrets never reach a log line: known secret-bearing fields and headers
 * are redacted by path, wherever they appear in logged objects.
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

export function createLogger(service: string, destination?: pino.DestinationStream): Logger {
  // Under `npm test` logs go to a file in the run's log directory (GATEWAY_TEST_LOG_DIR), never to
  // the test output: failures stay readable, and the secrets audit scans every line written.
  const testLog = destination ? undefined : testLogDestination();
  const level = process.env.LOG_LEVEL ?? (process.env.NODE_ENV !== 'test' ? 'info' : testLog ? 'debug' : 'silent');
  return pino({ name: service, level, redact: { paths: redactedPaths, censor: '[REDACTED]' } }, destination ?? testLog);
}

let testDestination: pino.DestinationStream | undefined;

function testLogDestination(): pino.DestinationStream | undefined {
  const dir = process.env.NODE_ENV === 'test' ? process.env.GATEWAY_TEST_LOG_DIR : undefined;
  if (!dir) return undefined;
  // One file per process; synchronous so the last lines before a crash or exit are kept.
  testDestination ??= pino.destination({ dest: `${dir}/pino-${process.pid}.log`, sync: true, mkdir: true });
  return testDestination;
}
