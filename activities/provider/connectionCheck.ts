/**
 * "Test the connection": with a merchant's PSP connection, take a token, read the webhook of its
 * Pix key (GET /v2/webhook/{chave}) and the account's balance (Efí's GET /v2/gn/saldo), and say
 * what is missing in our own words. The PSP's texts stay out (they may echo what we sent), and so
 * does the webhook's URL (its path carries a secret): a problem names the step and our error code.
 */
import { ProviderError } from '../../core/provider';
import type { ConnectionTestRecord } from '../../core/connections/testRecord';
import type { PixApiConnection } from './pixApi/connection';
import { PixApiErrorCodes } from './pixApi/errors';
import { PixApiClient } from './pixApi/pixApiClient';
import { EfiClient } from './efi/efiClient';

export interface CheckTarget {
  apiBaseUrl: string;
  pixKey: string;
}

export async function checkConnection(
  connection: PixApiConnection,
  target: CheckTarget,
  now: () => Date = () => new Date(),
): Promise<ConnectionTestRecord> {
  const problems: string[] = [];
  const token = await takeToken(connection, problems);
  let webhook: ConnectionTestRecord['webhook'] = 'UNKNOWN';
  let balance: ConnectionTestRecord['balance'] = 'UNKNOWN';
  if (token === 'TAKEN') {
    webhook = await readWebhook(connection, target, problems);
    balance = await readBalance(connection, target, problems);
  }
  return { at: now().toISOString(), ok: problems.length === 0, token, webhook, balance, problems };
}

async function takeToken(connection: PixApiConnection, problems: string[]): Promise<ConnectionTestRecord['token']> {
  try {
    await connection.tokens.token();
    return 'TAKEN';
  } catch (err) {
    const e = providerError(err);
    if (e.code === PixApiErrorCodes.authFailed) {
      problems.push('the PSP refused the client id or client secret: no token was issued');
      return 'REFUSED';
    }
    if (e.code === PixApiErrorCodes.certificateRefused) {
      problems.push(
        "the PSP took the client id and secret but refused the client certificate: it is not one of this account's (another account's certificate?); give the certificate the PSP issued for this account",
      );
      return 'CERTIFICATE_REFUSED';
    }
    problems.push(transportProblem(e, 'the token request'));
    return 'UNREACHABLE';
  }
}

async function readWebhook(
  connection: PixApiConnection,
  target: CheckTarget,
  problems: string[],
): Promise<ConnectionTestRecord['webhook']> {
  try {
    const found = await new PixApiClient({ connection, baseUrl: target.apiBaseUrl }).getWebhook(target.pixKey);
    if (found) return 'REGISTERED';
    problems.push(`no webhook is registered for the Pix key ${target.pixKey}: the PSP would notify no payment`);
    return 'MISSING';
  } catch (err) {
    const e = providerError(err);
    if (e.code === PixApiErrorCodes.accessDenied)
      problems.push('the client may not read webhooks (the PSP denied the scope webhook.read)');
    else if (e.code === PixApiErrorCodes.webhookRefused)
      problems.push(`the PSP says the Pix key ${target.pixKey} is not a key of this account`);
    else problems.push(transportProblem(e, 'reading the webhook'));
    return 'UNKNOWN';
  }
}

async function readBalance(
  connection: PixApiConnection,
  target: CheckTarget,
  problems: string[],
): Promise<ConnectionTestRecord['balance']> {
  try {
    // Efí's own routes are on the API Pix host (config.ts: EFI_API_BASE_URL defaults to its origin).
    await new EfiClient(connection, new URL(target.apiBaseUrl).origin).balanceCents();
    return 'READABLE';
  } catch (err) {
    const e = providerError(err);
    if (e.code === PixApiErrorCodes.accessDenied || e.httpStatus === 403)
      problems.push('the client may not read the balance (the PSP denied the scope gn.balance.read)');
    else problems.push(transportProblem(e, 'reading the balance'));
    return 'UNREADABLE';
  }
}

/**
 * A failed PUT /webhook/{chave} with a merchant's connection (`gateway connection webhook`), in
 * our words like the test's problems: never the PSP's text, which may echo the URL and its secret.
 */
export function webhookRegistrationProblem(err: unknown, pixKey: string): string {
  const e = providerError(err);
  if (e.code === PixApiErrorCodes.accessDenied)
    return 'the client may not register webhooks (the PSP denied the scope webhook.write)';
  if (e.code === PixApiErrorCodes.webhookRefused)
    return `the PSP refused the webhook for the Pix key ${pixKey}: the key is not of this account, or the PSP does not accept the URL (PUBLIC_BASE_URL must be https and reachable by the PSP)`;
  return transportProblem(e, 'registering the webhook');
}

/** A failure before or around the HTTP answer: the certificate, the network, the PSP itself. */
function transportProblem(e: ProviderError, step: string): string {
  const reason = /\(([A-Z0-9_]{2,80})\)/.exec(e.message)?.[1] ?? null;
  if (e.code === PixApiErrorCodes.unavailable && reason && /ALERT|CERTIFICATE_REQUIRED|EPROTO|ECONNRESET/.test(reason))
    return `the PSP refused the client certificate during ${step} (TLS: ${reason})`;
  if (e.code === PixApiErrorCodes.unavailable && reason && /CERT|SELF_SIGNED|VERIFY|ISSUER/.test(reason))
    return `the PSP's server certificate is not trusted during ${step} (${reason}): give its CA with --ca-file`;
  if (e.code === PixApiErrorCodes.unavailable && e.httpStatus === null)
    return `the PSP could not be reached for ${step}${reason ? ` (${reason})` : ''}`;
  if (e.code === PixApiErrorCodes.timeout) return `the PSP did not answer ${step} in time`;
  if (e.code === PixApiErrorCodes.authFailed) return `the PSP refused our token for ${step}`;
  if (e.code === PixApiErrorCodes.certificateRefused)
    return `the PSP refused the client certificate for ${step}: it is not one of this account's`;
  return `${step} failed (${e.code}${e.httpStatus ? `, HTTP ${e.httpStatus}` : ''})`;
}

function providerError(err: unknown): ProviderError {
  if (err instanceof ProviderError) return err;
  // A URL we refused to use, or a bug: our own message only names a variable, never a value.
  return new ProviderError(err instanceof Error ? err.message : 'unexpected failure', 'CONNECTION_CHECK_FAILED', false);
}
