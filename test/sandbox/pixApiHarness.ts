/** API Pix over real HTTP against the sandbox harness: the token, bearer calls, cob bodies. */
import { randomAlphanumeric } from '../../core/pix/random';
import { DEV_PIX_CLIENT_ID, DEV_PIX_CLIENT_SECRET } from '../../sandbox/config';
import { SANDBOX_MERCHANT } from '../../sandbox/payer';
import { startSandbox, type SandboxHarness } from './harness';
import type { SandboxAppOptions } from '../../sandbox/app';

export const RECEIVING_KEY = SANDBOX_MERCHANT.pixKey;

export interface HttpAnswer {
  status: number;
  contentType: string;
  headers: Headers;
  text: string;
  json: any;
}

async function answer(res: Response): Promise<HttpAnswer> {
  const text = await res.text();
  const contentType = res.headers.get('content-type') ?? '';
  return {
    status: res.status,
    contentType,
    headers: res.headers,
    text,
    json: text && /json/.test(contentType) ? JSON.parse(text) : null,
  };
}

export function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

/** POST /oauth/token as a client would send it (override any part to test refusals). */
export async function requestToken(
  baseUrl: string,
  opts: { authorization?: string; body?: string; contentType?: string } = {},
): Promise<HttpAnswer> {
  const res = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: opts.authorization ?? basic(DEV_PIX_CLIENT_ID, DEV_PIX_CLIENT_SECRET),
      'content-type': opts.contentType ?? 'application/x-www-form-urlencoded',
    },
    body: opts.body ?? 'grant_type=client_credentials',
  });
  return answer(res);
}

export interface PixApiHarness extends SandboxHarness {
  token: string;
  /** A call to /api/v2 with the harness's bearer token (or `token`). */
  pix(method: string, path: string, body?: unknown, token?: string): Promise<HttpAnswer>;
}

export async function startPixApiSandbox(opts: Partial<SandboxAppOptions> = {}): Promise<PixApiHarness> {
  const h = await startSandbox({ devolucaoSettleMs: 100, ...opts });
  const granted = await requestToken(h.url);
  if (granted.status !== 200) throw new Error(`no token: ${granted.status} ${granted.text}`);
  const token = granted.json.access_token as string;
  return {
    ...h,
    token,
    async pix(method, path, body, bearer = token) {
      const res = await fetch(`${h.url}/api/v2${path}`, {
        method,
        headers: {
          authorization: `Bearer ${bearer}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return answer(res);
    },
  };
}

export function newTxid(): string {
  return randomAlphanumeric(32);
}

export function cobBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    calendario: { expiracao: 3600 },
    devedor: { cpf: '52998224725', nome: 'Joana Pagadora' },
    valor: { original: '25.00' },
    chave: RECEIVING_KEY,
    solicitacaoPagador: 'Pedido 42',
    ...overrides,
  };
}

/** An ISO instant `ms` from now, for inicio/fim. */
export function instant(ms: number): string {
  return new Date(Date.now() + ms).toISOString();
}

/** Now, a few ms after anything done before (timestamps have ms resolution): the start of a list test's range. */
export async function freshInstant(): Promise<string> {
  await new Promise((r) => setTimeout(r, 5));
  const at = instant(0);
  await new Promise((r) => setTimeout(r, 5));
  return at;
}

/** A cob of `valor` for `chave`, created with an account's token; its txid (the answer must be 201). */
export async function createCob(h: PixApiHarness, token: string, chave: string, valor: string): Promise<string> {
  const txid = newTxid();
  const put = await h.pix('PUT', `/cob/${txid}`, cobBody({ chave, valor: { original: valor } }), token);
  if (put.status !== 201) throw new Error(`PUT /cob answered ${put.status}: ${JSON.stringify(put.json)}`);
  return txid;
}
