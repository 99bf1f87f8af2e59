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
  const level = process.env.LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'silent' : 'info');
  return pino({ name: service, level, redact: { paths: redactedPaths, censor: '[REDACTED]' } }, destination);
}
