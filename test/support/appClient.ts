/**
 * A browser-like client of the application API for tests: keeps the cookies the API sets
 * (refresh_token, csrf_token) and sends them back, as a browser would on the same site.
 */
import { recordIssuedSecrets } from './testLogs';

/** Request fields that are secrets (the audit checks no log line holds them). */
const SECRET_FIELDS =
  /^(password|currentPassword|newPassword|accessToken|refreshToken|challengeToken|actionToken|secret|clientSecret|pfxPassphrase|recoveryCodes)$/;

/**
 * Secret values of a request or answer body, for the end-of-run secrets audit. Six-digit codes
 * are left out: they match timestamps and ports by chance; they live minutes and work once.
 */
function secretsIn(value: unknown, depth = 0): string[] {
  if (depth > 5 || value === null || typeof value !== 'object') return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => {
    if (SECRET_FIELDS.test(k))
      return (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string' && x.length >= 8);
    return secretsIn(v, depth + 1);
  });
}

export interface AppAnswer {
  status: number;
  body: any;
  headers: Headers;
}

export class AppClient {
  readonly cookies = new Map<string, string>();
  accessToken: string | undefined;

  constructor(private readonly baseUrl: string) {}

  async call(
    method: string,
    path: string,
    o: { body?: unknown; bearer?: string | null; headers?: Record<string, string>; cookies?: boolean } = {},
  ): Promise<AppAnswer> {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    const bearer = o.bearer === undefined ? this.accessToken : o.bearer;
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    if (o.cookies !== false && this.cookies.size)
      headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...rest] = pair.split('=');
      const value = rest.join('=');
      if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(name.trim());
      else this.cookies.set(name.trim(), value);
    }
    const text = await res.text();
    let body: any = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    recordIssuedSecrets('application API passwords and tokens', [...secretsIn(o.body), ...secretsIn(body)]);
    return { status: res.status, body, headers: res.headers };
  }

  /** GET /auth/csrf: the token goes to the cookie jar and is returned for the header. */
  async csrf(): Promise<string> {
    const res = await this.call('GET', '/auth/csrf', { bearer: null });
    return res.body.csrfToken as string;
  }

  async register(input: { email: string; password: string; name?: string; [k: string]: unknown }): Promise<AppAnswer> {
    return this.call('POST', '/auth/register', { body: { name: 'Ana Lima', ...input }, bearer: null });
  }

  async login(email: string, password: string): Promise<AppAnswer> {
    const res = await this.call('POST', '/auth/login', { body: { email, password }, bearer: null });
    if (res.status === 200 && res.body.accessToken) this.accessToken = res.body.accessToken;
    return res;
  }

  async refresh(): Promise<AppAnswer> {
    const token = await this.csrf();
    const res = await this.call('POST', '/auth/refresh', { headers: { 'x-csrf-token': token }, bearer: null });
    if (res.status === 200) this.accessToken = res.body.accessToken;
    return res;
  }
}

/** Answers counted by "status CODE" (e.g. "401 INVALID_CHALLENGE"), for requests sent at once. */
export function tallyAnswers(answers: AppAnswer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of answers) {
    const key = `${a.status} ${a.body?.error?.code ?? ''}`.trim();
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

let counter = 0;
/** A unique e-mail per call (tests share one database). */
export function uniqueEmail(prefix = 'user'): string {
  counter++;
  return `${prefix}.${Date.now().toString(36)}${counter}${Math.random().toString(36).slice(2, 6)}@example.com`;
}
