/**
 * One API Pix call: bearer token, JSON in and out, the answer checked against its schema, and a
 * 401 answered by renewing the token and trying once more (a revoked or rotated token), never
 * in a loop: the 401 that survives a fresh token is a credentials problem, not a stale cache.
 */
import type { z } from 'zod';
import {
  outcomeUnknown,
  answerError,
  isNotFoundProblem,
  type NotFoundProblemType,
  type OperationCodes,
} from './errors';
import type { TokenSource } from './tokenSource';
import type { HttpAnswer, HttpExchange, PixApiTransport } from './transport';

export interface CallSpec<T> {
  method: HttpExchange['method'];
  /** Relative to the base URL, ids already validated and encoded: "/cob/abc…". */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** Null: any 2xx is success and its body is ignored (PUT /webhook answers 200 without one). */
  schema: z.ZodType<T> | null;
  /** "PUT /cob/{txid}": the route's template, for messages (no ids, no secrets). */
  route: string;
  codes: OperationCodes;
  /** A 404 with this problem type (or the standard's general NaoEncontrado) answers null. */
  nullOnNotFound?: NotFoundProblemType;
  /**
   * Routes that are not API Pix (a PSP's own, e.g. Efí's `/v2/gn/…`) answer errors in their own
   * form: their mapping to ProviderErrors, and which answer means "no such resource" (null).
   */
  foreign?: {
    errorOf: (answer: HttpAnswer, what: string, nowMs: number) => Error;
    isNotFound?: (answer: HttpAnswer) => boolean;
  };
  /** The label errors carry instead of "API Pix <route>". */
  what?: string;
}

export class AuthorizedCaller {
  private readonly baseUrl: string;

  constructor(
    private readonly transport: PixApiTransport,
    private readonly tokens: TokenSource,
    baseUrl: string,
    private readonly now: () => number = Date.now,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  async call<T>(spec: CallSpec<T>): Promise<T | null> {
    const what = spec.what ?? `API Pix ${spec.route}`;
    const query =
      spec.query && Object.keys(spec.query).length > 0 ? `?${new URLSearchParams(spec.query).toString()}` : '';
    const url = `${this.baseUrl}${spec.path}${query}`;
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const send = (token: string): Promise<HttpAnswer> => {
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
      if (body !== undefined) headers['content-type'] = 'application/json';
      return this.transport.send({ method: spec.method, url, headers, body, what });
    };

    let token = await this.tokens.token();
    let answer = await send(token);
    if (answer.status === 401) {
      this.tokens.reject(token);
      token = await this.tokens.token();
      answer = await send(token);
    }

    if (answer.status >= 200 && answer.status < 300) return parseAnswer(answer, spec.schema, what);
    if (spec.foreign) {
      if (spec.foreign.isNotFound?.(answer)) return null;
      throw spec.foreign.errorOf(answer, what, this.now());
    }
    if (spec.nullOnNotFound && isNotFoundProblem(answer, spec.nullOnNotFound)) return null;
    throw answerError(answer, what, spec.codes, this.now());
  }
}

function parseAnswer<T>(answer: HttpAnswer, schema: z.ZodType<T> | null, what: string): T {
  if (schema === null) return undefined as T;
  let json: unknown;
  try {
    json = JSON.parse(answer.text);
  } catch {
    throw outcomeUnknown(what, answer.status, 'the answer is not JSON', answer.text);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    // Where it failed, not what it held: the body may carry a payer's name and document.
    const where = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.code}`).join(', ');
    throw outcomeUnknown(what, answer.status, 'the answer does not follow the standard', where);
  }
  return parsed.data;
}
