/**
 * The payout part's baselines: the provider's own throughput, hammered straight at the sandbox
 * with nothing of ours in the way (scripts/lib/payoutBench.ts compares each batch with it).
 *  - Efí's send (PIX_TRANSFERS_API=efi): PUT /v3/gn/pix/{idEnvio}, then GET
 *    /v2/gn/pix/enviados/id-envio/{idEnvio} once the settle time has passed (again at once while
 *    EM_PROCESSAMENTO), a bearer token from POST /oauth/token, the send webhooks paused.
 *  - The sandbox's own route (PIX_TRANSFERS_API=sandbox): POST /v1/transfers with its API key and
 *    an Idempotency-Key, as the gateway's adapter sends it (the baseline of the history in
 *    docs/benchmarks.md, "baseline (a) still hammers /v1").
 * And the sweep that picks the send concurrency: the Efí baseline at each candidate, the best
 * being the smallest within 5 % of the highest rate (more slots for no gain only add contention).
 * A request that fails is counted by kind (scripts/lib/loadFetch.ts), never thrown; the rate
 * counts the sends that completed.
 */
import crypto from 'node:crypto';
import { SANDBOX_PIX_CLIENT_ID, SANDBOX_PIX_CLIENT_SECRET } from '../../config';
import { SANDBOX_MERCHANT } from '../../sandbox/payer';
import { timed } from './benchTable';
import { LoadErrors, loadFetch } from './loadFetch';

export interface BaselineTarget {
  sandboxUrl: string;
  /** The sandbox's /v1 API key (PROVIDER_API_KEY). */
  sandboxApiKey: string;
  /** How long the sandbox's Efí send reads EM_PROCESSAMENTO (SANDBOX_EFI_SEND_SETTLE_MS). */
  efiSendSettleMs: number;
}

export interface BaselineRate {
  concurrency: number;
  sends: number;
  perS: number;
  errors: LoadErrors;
}

/**
 * `n` Efí sends, `concurrency` at a time; sends/s. The idEnvios are not of our form (bench…, not a
 * UUID's 32 hex digits) and the send webhooks are paused meanwhile, so none reaches the gateway.
 */
export async function hammerEfi(t: BaselineTarget, n: number, concurrency: number): Promise<BaselineRate> {
  const errors = new LoadErrors();
  const token = await sandboxToken(t.sandboxUrl);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' };
  const run = crypto.randomBytes(4).toString('hex');
  await pauseSendWebhooks(t.sandboxUrl, true);
  try {
    let failed = 0;
    const r = await timed(n, concurrency, async (i) => {
      const idEnvio = `bench${run}n${i}`;
      const put = await loadFetch(errors, `${t.sandboxUrl}/v3/gn/pix/${idEnvio}`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({
          valor: '1.00',
          pagador: { chave: SANDBOX_MERCHANT.pixKey },
          favorecido: { chave: `recebedor${i}@example.com` },
        }),
      });
      // The status only, never the request: it carries the token.
      if (put?.status !== 201) {
        if (put && put.status < 500) errors.count(`PUT ${put.status}`);
        failed++;
        return;
      }
      if (t.efiSendSettleMs > 0) await new Promise((resolve) => setTimeout(resolve, t.efiSendSettleMs));
      for (;;) {
        const got = await loadFetch(errors, `${t.sandboxUrl}/v2/gn/pix/enviados/id-envio/${idEnvio}`, { headers });
        if (got?.status !== 200) {
          if (got && got.status < 500) errors.count(`GET ${got.status}`);
          failed++;
          return;
        }
        const status = (JSON.parse(got.body.toString('utf8')) as { status: string }).status;
        if (status === 'REALIZADO') return;
        if (status !== 'EM_PROCESSAMENTO') {
          errors.count(`send ${status}`);
          failed++;
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    });
    return { concurrency, sends: n, perS: (n - failed) / (r.wallMs / 1000), errors };
  } finally {
    await pauseSendWebhooks(t.sandboxUrl, false);
  }
}

/**
 * `n` transfers through the sandbox's own POST /v1/transfers, `concurrency` at a time; transfers/s.
 * References bench…, which no payout item has, so the checks of "paid once" are not disturbed.
 */
export async function hammerSandboxTransfers(t: BaselineTarget, n: number, concurrency: number): Promise<BaselineRate> {
  const errors = new LoadErrors();
  const run = crypto.randomBytes(4).toString('hex');
  let failed = 0;
  const r = await timed(n, concurrency, async (i) => {
    const reference = `bench${run}n${i}`;
    const res = await loadFetch(errors, `${t.sandboxUrl}/v1/transfers`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.sandboxApiKey}`,
        'content-type': 'application/json',
        'idempotency-key': reference,
      },
      body: JSON.stringify({
        reference,
        amountCents: 100,
        pixKey: `recebedor${i}@example.com`,
        pixKeyType: 'EMAIL',
        recipientName: `Recebedor ${i}`,
      }),
    });
    if (res?.status !== 201) {
      if (res && res.status < 500) errors.count(`POST ${res.status}`);
      failed++;
    }
  });
  return { concurrency, sends: n, perS: (n - failed) / (r.wallMs / 1000), errors };
}

/** The concurrency to run at: the smallest whose rate is within 5 % of the highest. */
export function bestConcurrency(sweep: BaselineRate[]): number {
  const top = Math.max(...sweep.map((s) => s.perS));
  return Math.min(...sweep.filter((s) => s.perS >= 0.95 * top).map((s) => s.concurrency));
}

/** The sweep as printed: one line per concurrency, the chosen one marked. */
export function sweepLines(sweep: BaselineRate[], chosen: number): string {
  return (
    sweep
      .map(
        (s) =>
          `  send c=${String(s.concurrency).padStart(2)}: ${s.perS.toFixed(1).padStart(8)} sends/s (${s.sends} sends${s.errors.total ? `, errors: ${s.errors.summary()}` : ''})${s.concurrency === chosen ? '  ← chosen' : ''}`,
      )
      .join('\n') + '\n'
  );
}

/** A bearer token from the sandbox's POST /oauth/token (client credentials of development: config.ts). */
async function sandboxToken(sandboxUrl: string): Promise<string> {
  const basic = Buffer.from(
    `${encodeURIComponent(SANDBOX_PIX_CLIENT_ID)}:${encodeURIComponent(SANDBOX_PIX_CLIENT_SECRET)}`,
  ).toString('base64');
  const res = await fetch(`${sandboxUrl}/oauth/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  if (res.status !== 200) throw new Error(`sandbox token: ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

async function pauseSendWebhooks(sandboxUrl: string, paused: boolean): Promise<void> {
  const res = await fetch(`${sandboxUrl}/sandbox/efi/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ paused }),
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`sandbox: pausing the send webhooks answered ${res.status}`);
}
