/**
 * The bench's load generator's requests (every part's, scripts/bench.ts): each with a deadline
 * (AbortSignal.timeout, BENCH_REQUEST_TIMEOUT_MS, 15 s: the whole request, body included), and a
 * failure — a timeout, a reset, a refused connection, a 5xx — counted by kind in the part's
 * LoadErrors instead of thrown: a gateway that falls behind under the load it is meant to measure
 * is a figure (the part's row says how many failed and is met: false), not a crash. No retry: a
 * retried request would hide the failure it met. The kinds are undici's own codes (fetch's
 * TypeError 'fetch failed' carries them as its cause), shown as they are.
 */

export const REQUEST_TIMEOUT_MS = Number(process.env.BENCH_REQUEST_TIMEOUT_MS ?? 15_000);

export interface LoadResponse {
  status: number;
  body: Buffer;
}

/** One part's failed requests by kind: 'timeout', 'reset', 'refused', '5xx' or undici's code as it is. */
export class LoadErrors {
  readonly byKind = new Map<string, number>();

  get total(): number {
    let n = 0;
    for (const v of this.byKind.values()) n += v;
    return n;
  }

  count(kind: string): void {
    this.byKind.set(kind, (this.byKind.get(kind) ?? 0) + 1);
  }

  /** e.g. "3 timeout, 1 reset (UND_ERR_SOCKET)"; "none" when there were none. */
  summary(): string {
    if (this.byKind.size === 0) return 'none';
    return [...this.byKind].map(([kind, n]) => `${n} ${kind}`).join(', ');
  }
}

/**
 * What a failed fetch was, from its error: the timeout of AbortSignal.timeout, undici's connect,
 * headers and body timeouts, resets and refusals by their codes; anything else by its code or name.
 */
export function failureKind(err: unknown): string {
  const e = err as { name?: string; code?: string; cause?: { name?: string; code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.cause?.name === 'TimeoutError') return 'timeout';
  const code = e?.cause?.code ?? e?.code;
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'ETIMEDOUT':
      return `timeout (${code})`;
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
    case 'EPIPE':
      return `reset (${code})`;
    case 'ECONNREFUSED':
      return 'refused';
  }
  // No code (undici's 'bad port', an invalid URL…): its message, as it is.
  return code ?? e?.cause?.message ?? e?.name ?? 'error';
}

/** An error as one line: its message and, for fetch's 'fetch failed', what undici says caused it. */
export function describeError(err: unknown): string {
  // Duck-typed: an error from another realm (undici's, under jest) is no `instanceof Error` here.
  const e = err as { message?: unknown; cause?: { code?: string; message?: string } } | null;
  if (typeof e?.message !== 'string') return String(err);
  const { cause } = e;
  const message = e.message;
  const why = cause?.code ?? cause?.message;
  return why && !message.includes(why) ? `${message} (${why})` : message;
}

/**
 * `fetch` with the deadline, its body read under the same deadline; a 5xx counted (and still
 * returned: the caller may want its status); undefined when the request failed (counted).
 */
export async function loadFetch(
  errors: LoadErrors,
  url: string,
  init: RequestInit = {},
  timeoutMs = REQUEST_TIMEOUT_MS,
): Promise<LoadResponse | undefined> {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status >= 500) errors.count('5xx');
    return { status: res.status, body };
  } catch (err) {
    errors.count(failureKind(err));
    return undefined;
  }
}
