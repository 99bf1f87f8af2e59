/**
 * The SMTP side of e-mail: one transporter per process from SMTP_URL, and our own words for what
 * went wrong. Errors are described by nodemailer's error code and the SMTP reply code only, never
 * by the server's text or the URL: those can carry the login, and operators read `last_error`
 * and /ready.
 */
import nodemailer from 'nodemailer';

/** A connection or reply that takes longer than this counts as a failed attempt (the workflow retries). */
const CONNECTION_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 30_000;

export type SmtpTransport = ReturnType<typeof createSmtpTransport>;

export function createSmtpTransport(smtpUrl: string) {
  return nodemailer.createTransport({
    url: smtpUrl,
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    greetingTimeout: CONNECTION_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
    // nodemailer logs nothing unless asked: keep it that way (debug output would show message bodies).
    logger: false,
    debug: false,
  });
}

export interface SmtpProblem {
  /** Short stable code, e.g. SMTP_UNREACHABLE. */
  code: string;
  /** One sentence in our words, safe to store and show. */
  message: string;
  /** False when retrying cannot help (the server refused the recipient or the message for good). */
  retryable: boolean;
}

export function describeSmtpError(err: unknown): SmtpProblem {
  const e = (err ?? {}) as { code?: unknown; responseCode?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  const reply = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const replyText = reply === undefined ? '' : ` (reply ${reply})`;
  switch (code) {
    case 'ECONNECTION':
    case 'ESOCKET':
    case 'EDNS':
    case 'EPROXY':
      return { code: 'SMTP_UNREACHABLE', message: 'could not connect to the SMTP server', retryable: true };
    case 'ETIMEDOUT':
      return { code: 'SMTP_TIMEOUT', message: 'the SMTP server did not answer in time', retryable: true };
    case 'ETLS':
    case 'EREQUIRETLS':
      return { code: 'SMTP_TLS', message: 'TLS with the SMTP server failed', retryable: true };
    case 'EAUTH':
    case 'ENOAUTH':
      // A rotated password can be fixed by an operator within the retry window: keep trying.
      return { code: 'SMTP_AUTH', message: `the SMTP server refused our login${replyText}`, retryable: true };
    case 'EENVELOPE':
    case 'EMESSAGE':
    case 'EPROTOCOL':
      // 5xx is the server's final word on this message; 4xx (and no code) may pass later.
      if (reply !== undefined && reply >= 500)
        return { code: 'SMTP_REJECTED', message: `the SMTP server refused the message${replyText}`, retryable: false };
      return { code: 'SMTP_DEFERRED', message: `the SMTP server deferred the message${replyText}`, retryable: true };
    default:
      return { code: 'SMTP_ERROR', message: `sending through the SMTP server failed${replyText}`, retryable: true };
  }
}
