/** Efí's routes over real HTTP against the sandbox harness: the token from /oauth/token, bearer calls, a send's body. */
import { randomAlphanumeric } from '../../core/pix/random';
import type { SandboxAppOptions } from '../../sandbox/app';
import { RECEIVING_KEY, startPixApiSandbox, type HttpAnswer, type PixApiHarness } from './pixApiHarness';

export interface EfiHarness extends PixApiHarness {
  /** A call to the sandbox's root (/v2/gn/…, /v3/gn/…) with the harness's bearer token (or `token`; null: none). */
  efi(method: string, path: string, body?: unknown, token?: string | null): Promise<HttpAnswer>;
}

export async function startEfiSandbox(opts: Partial<SandboxAppOptions> = {}): Promise<EfiHarness> {
  const h = await startPixApiSandbox({ efiSendSettleMs: 100, ...opts });
  return {
    ...h,
    async efi(method, path, body, bearer = h.token) {
      const res = await fetch(`${h.url}${path}`, {
        method,
        headers: {
          ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      const contentType = res.headers.get('content-type') ?? '';
      return {
        status: res.status,
        contentType,
        headers: res.headers,
        text,
        json: text && /json/.test(contentType) ? JSON.parse(text) : null,
      };
    },
  };
}

export function newIdEnvio(): string {
  return randomAlphanumeric(20);
}

export function sendBody(overrides: { valor?: string; chave?: string; cpf?: string; infoPagador?: string } = {}) {
  return {
    valor: overrides.valor ?? '12.34',
    pagador: { chave: RECEIVING_KEY, ...(overrides.infoPagador ? { infoPagador: overrides.infoPagador } : {}) },
    favorecido: { chave: overrides.chave ?? 'maria@example.com', ...(overrides.cpf ? { cpf: overrides.cpf } : {}) },
  };
}

export { RECEIVING_KEY };
