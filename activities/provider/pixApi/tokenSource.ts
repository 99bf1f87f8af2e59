/**
 * OAuth 2.0 client credentials (RFC 6749 §4.4) against the PSP's token endpoint, over the same
 * mutual-TLS transport as the API. The token is cached until shortly before `expires_in` ends;
 * concurrent callers share one token request (single flight), so a burst of charges after a
 * restart asks for one token, not one each. Neither the secret nor a token is ever put in an
 * error, a log line or a label.
 */
import { ProviderError } from '../../../core/provider';
import { retryAfterMs } from '../../../core/net/retryAfter';
import { logSafe, PixApiErrorCodes } from './errors';
import { tokenResponseSchema } from './schemas';
import type { PixApiTransport } from './transport';

export interface TokenSourceOptions {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  now?: () => number;
}

/** RFC 6749 says expires_in is only RECOMMENDED; without it a token is trusted this long. */
const DEFAULT_LIFETIME_MS = 60_000;
/** Renewed this share of its lifetime early, at most a minute: a token must not expire in flight. */
const EARLY_SHARE = 0.1;
const EARLY_MAX_MS = 60_000;
const WHAT = 'API Pix token request';

/**
 * OAuth `error` names that say the credentials are right but the connection's client certificate
 * is not their account's: the Pix sandbox's `certificado_invalido` (sandbox/pixApi/oauth.ts; Efí
 * publishes no name, so this is what we assume of it). RFC 8705 §2's `invalid_client` cannot be
 * told from a wrong secret and stays PROVIDER_AUTH_FAILED.
 */
const CERTIFICATE_REFUSED_ERRORS: ReadonlySet<string> = new Set(['certificado_invalido']);

interface CachedToken {
  value: string;
  renewAtMs: number;
}

export class TokenSource {
  private cached: CachedToken | null = null;
  private inFlight: Promise<string> | null = null;
  private readonly now: () => number;
  private readonly authorization: string;

  constructor(
    private readonly transport: PixApiTransport,
    private readonly opts: TokenSourceOptions,
  ) {
    if (!opts.clientId || !opts.clientSecret) throw new Error('TokenSource: client id and secret are required');
    this.now = opts.now ?? Date.now;
    this.authorization = basicAuthorization(opts.clientId, opts.clientSecret);
  }

  /** A valid access token: the cached one, or the one the (single) token request in flight brings. */
  token(): Promise<string> {
    if (this.cached && this.now() < this.cached.renewAtMs) return Promise.resolve(this.cached.value);
    this.inFlight ??= this.request().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  /**
   * The API refused `token` (401): forget it, unless it was already replaced, so that one stale
   * 401 among many concurrent calls does not throw away the token the others just renewed.
   */
  reject(token: string): void {
    if (this.cached?.value === token) this.cached = null;
  }

  private async request(): Promise<string> {
    // Measured before sending: the lifetime runs from when the PSP issued it, which is after this.
    const sentAt = this.now();
    const answer = await this.transport.send({
      method: 'POST',
      url: this.opts.tokenUrl,
      headers: {
        authorization: this.authorization,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: 'grant_type=client_credentials',
      what: WHAT,
    });
    const { status } = answer;
    if (status >= 200 && status < 300) {
      let json: unknown;
      try {
        json = JSON.parse(answer.text);
      } catch {
        json = undefined;
      }
      const parsed = tokenResponseSchema.safeParse(json);
      if (!parsed.success)
        throw new ProviderError(
          `${WHAT} → ${status}: no usable bearer token in the answer`,
          PixApiErrorCodes.badTokenAnswer,
          true,
          status,
        );
      const lifetimeMs = parsed.data.expires_in !== undefined ? parsed.data.expires_in * 1000 : DEFAULT_LIFETIME_MS;
      const early = Math.min(EARLY_MAX_MS, lifetimeMs * EARLY_SHARE);
      this.cached = { value: parsed.data.access_token, renewAtMs: sentAt + lifetimeMs - early };
      return parsed.data.access_token;
    }
    const wait = retryAfterMs(firstHeader(answer.headers['retry-after']), this.now());
    if (status === 429)
      throw new ProviderError(`${WHAT} → 429: rate limited by the PSP`, PixApiErrorCodes.rateLimited, true, status, {
        retryAfterMs: wait,
      });
    if (status >= 500 || status === 408)
      throw new ProviderError(
        `${WHAT} → ${status}: the PSP is unavailable`,
        PixApiErrorCodes.unavailable,
        true,
        status,
        { retryAfterMs: wait },
      );
    // RFC 6749 §5.2: 400/401 with `error` (invalid_client, unauthorized_client, …). The
    // `error_description` is the PSP's text: logs only.
    const error = oauthError(answer.text);
    if (CERTIFICATE_REFUSED_ERRORS.has(error))
      throw new ProviderError(
        `${WHAT} → ${status}: the PSP refused our client certificate for these credentials (${error})`,
        PixApiErrorCodes.certificateRefused,
        false,
        status,
        { detail: oauthDescription(answer.text) },
      );
    throw new ProviderError(
      `${WHAT} → ${status}: the PSP refused our client credentials (${error})`,
      PixApiErrorCodes.authFailed,
      false,
      status,
      {
        detail: oauthDescription(answer.text),
      },
    );
  }
}

/**
 * RFC 6749 §2.3.1: client id and secret are each form-urlencoded, then joined with ":" and
 * base64-encoded. URLSearchParams is that encoding (space as "+", every reserved character escaped).
 */
export function basicAuthorization(clientId: string, clientSecret: string): string {
  const encode = (v: string) => new URLSearchParams({ v }).toString().slice(2);
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`, 'utf8').toString('base64')}`;
}

/** The registered error code only (`invalid_client`); anything else is "unexpected answer". */
function oauthError(text: string): string {
  try {
    const error = (JSON.parse(text) as { error?: unknown })?.error;
    if (typeof error === 'string' && /^[a-z_]{1,40}$/.test(error)) return error;
  } catch {
    // not JSON: a proxy page or nothing
  }
  return 'unexpected answer';
}

function oauthDescription(text: string): string | null {
  try {
    const description = (JSON.parse(text) as { error_description?: unknown })?.error_description;
    return typeof description === 'string' ? logSafe(description, 300) : null;
  } catch {
    return null;
  }
}

function firstHeader(value: string | string[] | undefined): string | null {
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}
