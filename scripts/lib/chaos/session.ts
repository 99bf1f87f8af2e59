/**
 * The signed-in owner of the load's main merchant (application API: charges, boletos, refunds,
 * settlements, checkout sessions, MED). Registered over HTTP, made owner by the operator CLI, and
 * signed in again before its 15-minute access token runs out or when the API refuses it.
 */
import type { BearerSource, LoadClient } from './client';

const RENEW_AFTER_MS = 10 * 60_000;

export class UserSession implements BearerSource {
  private token: string | undefined;
  private signedInAt = 0;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly client: LoadClient,
    readonly email: string,
    private readonly password: string,
  ) {}

  bearer(): Promise<string> {
    if (this.token && Date.now() - this.signedInAt < RENEW_AFTER_MS) return Promise.resolve(this.token);
    this.pending ??= this.signIn().finally(() => (this.pending = undefined));
    return this.pending;
  }

  invalidate(token: string): void {
    if (this.token === token) this.token = undefined;
  }

  private async signIn(): Promise<string> {
    const res = await this.client.call({
      op: 'user.login',
      base: 'api',
      method: 'POST',
      path: '/auth/login',
      body: { email: this.email, password: this.password },
    });
    if (!res.ok || typeof res.body?.accessToken !== 'string')
      throw new Error(`sign-in failed: ${res.status ?? 'no answer'} ${res.body?.error?.code ?? ''}`);
    this.token = res.body.accessToken as string;
    this.signedInAt = Date.now();
    return this.token;
  }
}
