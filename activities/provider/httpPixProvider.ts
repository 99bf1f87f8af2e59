/**
 * PixProvider over HTTP (the sandbox today, a real PSP adapter in production).
 * Error mapping is the contract with the retry logic above us:
 *  - no answer (network error, timeout) / 5xx / 408 / 429 → transient: retry with the same key
 *  - 409 idempotency conflict → PROVIDER_IDEMPOTENCY_CONFLICT, permanent (a bug on our side)
 *  - other 4xx → permanent, with the provider's error code when it gives one
 * Issue (charges, boletos) and transfer send `Idempotency-Key: <reference>` so a retried call never doubles.
 */
import type { z } from 'zod';
import {
  ProviderError,
  type BoletoProvider,
  type IssueBoletoRequest,
  type IssueChargeRequest,
  type PixProvider,
  type ProviderStatement,
  type StatementProvider,
  type InfractionDecision,
  type InfractionProvider,
  type ProviderInfraction,
  type ProviderBoleto,
  type ProviderCharge,
  type PaymentReturnRequest,
  type PixKeyOwner,
  type ProviderTransfer,
  type TransferRequest,
} from '../../core/provider';
import {
  pixKeyOwnerSchema,
  providerBoletoSchema,
  providerChargeSchema,
  providerInfractionListSchema,
  providerInfractionSchema,
  providerStatementSchema,
  providerTransferSchema,
} from './responseSchemas';

export interface HttpPixProviderOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
}

interface CallOptions {
  idempotencyKey?: string;
  /**
   * A "not found" answered with null instead of an error. Matched on the error code too: a
   * bare 404 (wrong baseUrl, proxy page) must not read as "no transfer yet", or a payout
   * could be sent twice.
   */
  nullOn?: { status: number; code: string };
}

export class HttpPixProvider implements PixProvider, BoletoProvider, StatementProvider, InfractionProvider {
  private readonly baseUrl: string;

  constructor(private readonly opts: HttpPixProviderOptions) {
    if (!opts.apiKey) throw new Error('HttpPixProvider: apiKey is required');
    if (!(opts.timeoutMs > 0)) throw new Error('HttpPixProvider: timeoutMs must be > 0');
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
  }

  issueCharge(req: IssueChargeRequest): Promise<ProviderCharge> {
    return this.required('POST', '/v1/charges', providerChargeSchema, req, { idempotencyKey: req.reference });
  }

  getCharge(providerChargeId: string): Promise<ProviderCharge> {
    return this.required('GET', `/v1/charges/${enc(providerChargeId)}`, providerChargeSchema);
  }

  findChargeByReference(reference: string): Promise<ProviderCharge | null> {
    return this.call('GET', `/v1/charges?reference=${enc(reference)}`, providerChargeSchema, undefined, {
      nullOn: { status: 404, code: 'CHARGE_NOT_FOUND' },
    });
  }

  closeCharge(providerChargeId: string, reason: 'EXPIRED' | 'CANCELLED'): Promise<ProviderCharge> {
    return this.required('POST', `/v1/charges/${enc(providerChargeId)}/close`, providerChargeSchema, { reason });
  }

  transfer(req: TransferRequest): Promise<ProviderTransfer> {
    return this.required('POST', '/v1/transfers', providerTransferSchema, req, { idempotencyKey: req.reference });
  }

  returnPayment(req: PaymentReturnRequest): Promise<ProviderTransfer> {
    return this.required('POST', '/v1/payment-returns', providerTransferSchema, req, { idempotencyKey: req.reference });
  }

  getTransferByReference(reference: string): Promise<ProviderTransfer | null> {
    return this.call('GET', `/v1/transfers?reference=${enc(reference)}`, providerTransferSchema, undefined, {
      nullOn: { status: 404, code: 'TRANSFER_NOT_FOUND' },
    });
  }

  /** A return is a transfer like any other here, found by our reference. */
  getPaymentReturn(req: { reference: string; endToEndId: string }): Promise<ProviderTransfer | null> {
    return this.getTransferByReference(req.reference);
  }

  lookUpPixKey(key: string): Promise<PixKeyOwner | null> {
    return this.call('GET', `/v1/dict/keys/${enc(key)}`, pixKeyOwnerSchema, undefined, {
      nullOn: { status: 404, code: 'PIX_KEY_NOT_FOUND' },
    });
  }

  /** The account statement for [from, to) (ISO instants): payments, transfers and returns. */
  getStatement(range: { from: string; to: string }): Promise<ProviderStatement> {
    return this.required('GET', `/v1/statements?from=${enc(range.from)}&to=${enc(range.to)}`, providerStatementSchema);
  }

  /** Pix infractions (MED) opened at or after `since`, oldest first. */
  async listInfractions(since: string): Promise<ProviderInfraction[]> {
    return (await this.required('GET', `/v1/infractions?since=${enc(since)}`, providerInfractionListSchema))
      .infractions;
  }

  /** Idempotent at the provider: the same answer again is a replay; a different one is a permanent 409. */
  answerInfraction(
    id: string,
    answer: { decision: InfractionDecision; justification: string },
  ): Promise<ProviderInfraction> {
    return this.required('POST', `/v1/infractions/${enc(id)}/analysis`, providerInfractionSchema, answer);
  }

  issueBoleto(req: IssueBoletoRequest): Promise<ProviderBoleto> {
    return this.required('POST', '/v1/boletos', providerBoletoSchema, req, { idempotencyKey: req.reference });
  }

  getBoleto(providerBoletoId: string): Promise<ProviderBoleto> {
    return this.required('GET', `/v1/boletos/${enc(providerBoletoId)}`, providerBoletoSchema);
  }

  findBoletoByReference(reference: string): Promise<ProviderBoleto | null> {
    return this.call('GET', `/v1/boletos?reference=${enc(reference)}`, providerBoletoSchema, undefined, {
      nullOn: { status: 404, code: 'BOLETO_NOT_FOUND' },
    });
  }

  /** A paid boleto answers 409 BOLETO_NOT_CANCELLABLE, raised as a permanent ProviderError with that code. */
  cancelBoleto(providerBoletoId: string): Promise<ProviderBoleto> {
    return this.required('POST', `/v1/boletos/${enc(providerBoletoId)}/cancel`, providerBoletoSchema, {});
  }

  private async required<T>(
    method: string,
    path: string,
    schema: z.ZodType<T>,
    body?: unknown,
    options: CallOptions = {},
  ): Promise<T> {
    const result = await this.call(method, path, schema, body, options);
    if (result === null) throw new Error('unreachable: null without nullOn');
    return result;
  }

  private async call<T>(
    method: string,
    path: string,
    schema: z.ZodType<T>,
    body?: unknown,
    options: CallOptions = {},
  ): Promise<T | null> {
    const what = `${method} ${path.split('?')[0]}`;
    const headers: Record<string, string> = { authorization: `Bearer ${this.opts.apiKey}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;

    let status: number;
    let text: string;
    try {
      // One signal covers connect, headers and body, so a slow body also times out.
      const res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
      status = res.status;
      text = await res.text();
    } catch (err) {
      throw networkError(err, what, this.opts.timeoutMs);
    }

    if (status >= 200 && status < 300) return parseSuccess(text, schema, what, status);
    const { nullOn } = options;
    if (nullOn && status === nullOn.status && errorBody(text).code === nullOn.code) return null;
    throw httpError(status, text, what);
  }
}

function enc(value: string): string {
  return encodeURIComponent(value);
}

function networkError(err: unknown, what: string, timeoutMs: number): ProviderError {
  // Duck-typed, not instanceof: fetch's DOMException/TypeError may come from another realm
  // (jest's sandbox, worker threads), where instanceof Error is false.
  const { name, message, cause } = (err ?? {}) as { name?: unknown; message?: unknown; cause?: { message?: unknown } };
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new ProviderError(`${what}: no answer within ${timeoutMs}ms`, 'PROVIDER_TIMEOUT', true);
  }
  // undici reports refused/reset connections as TypeError('fetch failed') with a cause.
  const detail = typeof cause?.message === 'string' ? `: ${cause.message}` : '';
  return new ProviderError(`${what}: ${String(message ?? err)}${detail}`, 'PROVIDER_UNAVAILABLE', true);
}

function parseSuccess<T>(text: string, schema: z.ZodType<T>, what: string, status: number): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    // Transient: the call itself may have worked; a retry with the same key is safe and
    // gives the provider (or a misbehaving proxy) a chance to answer properly.
    throw new ProviderError(`${what}: malformed ${status} answer from provider`, 'PROVIDER_BAD_RESPONSE', true, status);
  }
  return parsed.data;
}

function httpError(status: number, text: string, what: string): ProviderError {
  const { code, message } = errorBody(text);
  const detail = `${what} → ${status}${message ? `: ${message}` : ''}`;
  if (status === 504) return new ProviderError(detail, 'PROVIDER_TIMEOUT', true, status);
  if (status >= 500 || status === 429 || status === 408) {
    return new ProviderError(detail, 'PROVIDER_UNAVAILABLE', true, status);
  }
  if (status === 409 && (code === undefined || code === 'IDEMPOTENCY_CONFLICT')) {
    return new ProviderError(detail, 'PROVIDER_IDEMPOTENCY_CONFLICT', false, status);
  }
  return new ProviderError(detail, code ?? 'PROVIDER_REJECTED', false, status);
}

/** `{ error: { code, message } }`, tolerating anything else (HTML error pages, empty bodies). */
function errorBody(text: string): { code?: string; message?: string } {
  try {
    const error = (JSON.parse(text) as { error?: { code?: unknown; message?: unknown } })?.error;
    return {
      code: typeof error?.code === 'string' && error.code ? error.code : undefined,
      message: typeof error?.message === 'string' ? error.message.slice(0, 500) : undefined,
    };
  } catch {
    return {};
  }
}
