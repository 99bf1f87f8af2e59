/**
 * A connected merchant's boletos at its own Efí account (issue 37), over Efí's API Cobranças
 * (efipay/sdk-node-apis-efi, `APIS.DEFAULT`): createOneStepCharge (POST /v1/charge/one-step with
 * `payment.banking_billet`), detailCharge (GET /v1/charge/:id), cancelCharge (PUT
 * /v1/charge/:id/cancel). Its OAuth is its own (POST /v1/authorize, HTTP Basic with the
 * connection's client id and secret), on the connection's transport (its certificate and CA), so
 * the money of the boleto lands in the merchant's account and nothing of it is the platform's.
 *
 * What Efí does not give and how it is filled (docs/account-models.md, "boletos"):
 *  - no nosso número in the answers: the charge_id stands for it; the bank code is the digitable
 *    line's first three digits; the barcode is derived from the digitable line;
 *  - no txid for the hybrid boleto's Pix: read from its BR Code (field 62-05), else `efi<charge_id>`;
 *  - no idempotency key: our charge id goes as `metadata.custom_id`, and an issue first looks for
 *    a charge with that custom_id (listCharges, GET /v1/charges?charge_type=billet&custom_id=,
 *    over the last LOOKBACK_DAYS of creation dates, which Efí requires), so a retry after a lost
 *    answer reuses the first boleto instead of registering a second. Not closed: two issues of
 *    one charge at the same instant (the workflow runs one at a time), nor a create whose answer
 *    was lost and that Efí lists only later than our retry looks;
 *  - the paid amount is `payment.paid_value` and the time `payment.paid_at` (the fields Efí's
 *    charge list shows); no breakdown of fine and interest: the expected amount is the face value,
 *    and a payment by the hybrid boleto's Pix is not told apart from one by barcode.
 */
import { z } from 'zod';
import { digitableLineToBarcode } from '../../../core/boletos';
import { isoDateInBrasilia } from '../../../core/boletos/pdf/format';
import {
  ProviderError,
  type BoletoProvider,
  type IssueBoletoRequest,
  type PaidBoleto,
  type PaidBoletoLister,
  type ProviderBoleto,
  type ProviderPayer,
} from '../../../core/provider';
import { AuthorizedCaller, type CallSpec } from '../pixApi/authorizedCall';
import type { PixApiConnection } from '../pixApi/connection';
import { logSafe, outcomeUnknown, statusError } from '../pixApi/errors';
import { TokenSource } from '../pixApi/tokenSource';
import type { HttpAnswer } from '../pixApi/transport';

const BOLETO_NOT_FOUND = 'BOLETO_NOT_FOUND';
const BOLETO_NOT_CANCELLABLE = 'BOLETO_NOT_CANCELLABLE';

/** Efí's API Cobranças host beside its API Pix host; elsewhere (the sandbox) `<origin>/cobrancas`. */
export function efiCobrancasBaseUrl(apiBaseUrl: string): string {
  const url = new URL(apiBaseUrl);
  if (url.hostname === 'pix.api.efipay.com.br') return 'https://cobrancas.api.efipay.com.br';
  if (url.hostname === 'pix-h.api.efipay.com.br') return 'https://cobrancas-h.api.efipay.com.br';
  return `${url.origin}/cobrancas`;
}

const pixSchema = z.object({ qrcode: z.string(), qrcode_image: z.string() }).loose();
const billetSchema = z
  .object({
    barcode: z.string(),
    pix: pixSchema.optional(),
    expire_at: z.string(),
    configurations: z
      .object({ interest: z.number().nullable().optional(), fine: z.number().nullable().optional() })
      .loose()
      .optional(),
  })
  .loose();
const oneStepSchema = z
  .object({
    code: z.number(),
    data: billetSchema.extend({ charge_id: z.number().int(), total: z.number().int(), status: z.string() }).loose(),
  })
  .loose();
const detailSchema = z
  .object({
    code: z.number(),
    data: z
      .object({
        charge_id: z.number().int(),
        total: z.number().int(),
        status: z.string(),
        custom_id: z.string().nullable(),
        created_at: z.string(),
        customer: z
          .object({
            name: z.string().nullable().optional(),
            cpf: z.string().nullable().optional(),
            cnpj: z.string().nullable().optional(),
            corporate_name: z.string().nullable().optional(),
            email: z.string().optional(),
          })
          .loose()
          .optional(),
        payment: z
          .object({
            method: z.string(),
            banking_billet: billetSchema.optional(),
            paid_at: z.string().nullable().optional(),
            paid_value: z.number().int().optional(),
          })
          .loose()
          .optional(),
      })
      .loose(),
  })
  .loose();
const listSchema = z
  .object({
    code: z.number(),
    data: z.array(
      z.object({ id: z.number().int(), status: z.string(), custom_id: z.string().nullable().optional() }).loose(),
    ),
  })
  .loose();
/** listCharges' page size (its largest) and how many pages a sweep pass reads at most. */
const LIST_PAGE_SIZE = 100;
const MAX_LIST_PAGES = 50;
/** How far back (creation dates) a boleto is looked for by our reference. */
const LOOKBACK_DAYS = 31;
const DAY_MS = 86_400_000;
const cobrancasErrorSchema = z.object({ error: z.string() }).loose();
type Detail = z.infer<typeof detailSchema>['data'];

export interface EfiBoletosOptions {
  connection: PixApiConnection;
  /** efiCobrancasBaseUrl of the connection's API base URL. */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Where Efí notifies a boleto's changes (the connection's notification route), by our reference. */
  notificationUrl: (reference: string) => string | null;
}

export class EfiBoletos implements BoletoProvider, PaidBoletoLister {
  private readonly caller: AuthorizedCaller;

  constructor(private readonly opts: EfiBoletosOptions) {
    const { connection } = opts;
    connection.transport.assertUsableUrl(opts.baseUrl, "Efí's API Cobranças URL");
    const base = opts.baseUrl.replace(/\/+$/, '');
    const tokens = new TokenSource(connection.transport, {
      tokenUrl: `${base}/v1/authorize`,
      clientId: opts.clientId,
      clientSecret: opts.clientSecret,
      now: connection.now,
    });
    this.caller = new AuthorizedCaller(connection.transport, tokens, base, connection.now);
  }

  async issueBoleto(req: IssueBoletoRequest): Promise<ProviderBoleto> {
    // Efí takes no idempotency key: a retry after a lost answer finds the first by its custom_id.
    const existing = await this.findBoletoByReference(req.reference);
    if (existing) {
      if (existing.amountCents !== req.amountCents)
        throw outcomeUnknown('Efí GET /v1/charges', 200, 'the charge of this reference is for another amount');
      return existing;
    }
    const notificationUrl = this.opts.notificationUrl(req.reference);
    const customer =
      req.payer.document.length === 14
        ? { juridical_person: { corporate_name: req.payer.name, cnpj: req.payer.document } }
        : { name: req.payer.name, cpf: req.payer.document };
    const answer = await this.required('POST /v1/charge/one-step', {
      method: 'POST',
      path: '/v1/charge/one-step',
      body: {
        items: [{ name: `Cobrança ${req.reference}`.slice(0, 255), value: req.amountCents, amount: 1 }],
        metadata: { custom_id: req.reference, ...(notificationUrl ? { notification_url: notificationUrl } : {}) },
        payment: {
          banking_billet: {
            customer: { ...customer, ...(req.payer.email ? { email: req.payer.email } : {}) },
            expire_at: req.dueDate,
            configurations: {
              fine: req.fine?.percentBps ?? 0,
              interest: req.interest?.monthlyBps ?? 0,
              interest_type: 'monthly',
            },
          },
        },
      },
      schema: oneStepSchema,
    });
    const d = answer.data;
    if (d.total !== req.amountCents)
      throw outcomeUnknown('Efí POST /v1/charge/one-step', answer.code, 'the answer is for another amount');
    return boletoOf({
      charge_id: d.charge_id,
      total: d.total,
      status: d.status,
      custom_id: req.reference,
      created_at: new Date().toISOString(),
      customer: { name: req.payer.name, cpf: req.payer.document, email: req.payer.email ?? undefined },
      payment: { method: 'banking_billet', banking_billet: d },
    });
  }

  async getBoleto(providerBoletoId: string): Promise<ProviderBoleto> {
    const answer = await this.caller.call({
      ...this.spec('GET /v1/charge/{id}'),
      method: 'GET',
      path: `/v1/charge/${chargeId(providerBoletoId)}`,
      schema: detailSchema,
    });
    if (!answer)
      throw new ProviderError(`Efí has no charge ${providerBoletoId} on this account`, BOLETO_NOT_FOUND, false, 404);
    if (String(answer.data.charge_id) !== providerBoletoId)
      throw outcomeUnknown('Efí GET /v1/charge/{id}', answer.code, 'the answer is about another charge');
    return boletoOf(answer.data);
  }

  /**
   * The boleto whose custom_id is our reference, created in the last LOOKBACK_DAYS (Brasília days;
   * Efí's list needs the range): a live one before a cancelled one, then read in full.
   */
  async findBoletoByReference(reference: string): Promise<ProviderBoleto | null> {
    const now = this.opts.connection.now();
    const answer = await this.required('GET /v1/charges', {
      method: 'GET',
      path: '/v1/charges',
      query: {
        charge_type: 'billet',
        begin_date: isoDateInBrasilia(new Date(now - LOOKBACK_DAYS * DAY_MS)),
        end_date: isoDateInBrasilia(new Date(now + DAY_MS)),
        custom_id: reference,
      },
      schema: listSchema,
    });
    const ours = answer.data.filter((c) => c.custom_id === reference);
    const found = ours.find((c) => !CLOSED.has(c.status)) ?? ours[0];
    return found ? this.getBoleto(String(found.id)) : null;
  }

  /**
   * The billets paid on these Brasília days (listCharges with `status=paid&date_of=payment`), every
   * page of LIST_PAGE_SIZE, for the sweep for lost notices: each is only a reason to read it again.
   */
  async listPaidBoletos(range: { fromDay: string; toDay: string }): Promise<PaidBoleto[]> {
    const paid: PaidBoleto[] = [];
    for (let page = 1; page <= MAX_LIST_PAGES; page++) {
      const answer = await this.required('GET /v1/charges', {
        method: 'GET',
        path: '/v1/charges',
        query: {
          charge_type: 'billet',
          status: 'paid',
          date_of: 'payment',
          begin_date: range.fromDay,
          end_date: range.toDay,
          limit: String(LIST_PAGE_SIZE),
          page: String(page),
        },
        schema: listSchema,
      });
      for (const c of answer.data)
        if (c.status === 'paid') paid.push({ providerBoletoId: String(c.id), reference: c.custom_id ?? null });
      if (answer.data.length < LIST_PAGE_SIZE) return paid;
    }
    // More than MAX_LIST_PAGES pages in two days: the rest is found at each boleto's close.
    return paid;
  }

  async cancelBoleto(providerBoletoId: string): Promise<ProviderBoleto> {
    try {
      await this.caller.call({
        ...this.spec('PUT /v1/charge/{id}/cancel'),
        method: 'PUT',
        path: `/v1/charge/${chargeId(providerBoletoId)}/cancel`,
        schema: null,
      });
    } catch (err) {
      if (!(err instanceof ProviderError) || err.transient) throw err;
      // Efí refuses to cancel a paid charge (its code is not published): its record says which.
      const now = await this.getBoleto(providerBoletoId);
      if (now.status === 'PAID')
        throw new ProviderError('the boleto is PAID', BOLETO_NOT_CANCELLABLE, false, 409, { detail: err.detail });
      if (now.status === 'CANCELLED') return now;
      throw err;
    }
    return this.getBoleto(providerBoletoId);
  }

  private spec(route: string): Pick<CallSpec<unknown>, 'route' | 'codes' | 'foreign' | 'what'> {
    return {
      route,
      codes: { refused: 'PROVIDER_REJECTED', notFound: BOLETO_NOT_FOUND },
      what: `Efí ${route}`,
      foreign: { errorOf: cobrancasAnswerError, isNotFound: (a) => a.status === 404 && errorName(a) !== null },
    };
  }

  private async required<T>(
    route: string,
    spec: Pick<CallSpec<T>, 'method' | 'path' | 'body' | 'query'> & { schema: z.ZodType<T> },
  ) {
    const answer = await this.caller.call<T>({
      ...spec,
      ...this.spec(route),
      foreign: { errorOf: cobrancasAnswerError },
    });
    if (answer === null) throw new Error('unreachable: null without a not-found rule');
    return answer;
  }
}

function chargeId(id: string): string {
  if (!/^[1-9]\d{0,14}$/.test(id))
    throw new ProviderError(`not an Efí charge id: ${id.slice(0, 20)}`, BOLETO_NOT_FOUND, false, 404);
  return id;
}

function errorName(answer: HttpAnswer): string | null {
  try {
    const parsed = cobrancasErrorSchema.safeParse(JSON.parse(answer.text));
    return parsed.success ? parsed.data.error : null;
  } catch {
    return null;
  }
}

/** API Cobranças' `{"code", "error", "error_description"}`: permanent refusals under our codes. */
function cobrancasAnswerError(answer: HttpAnswer, what: string, _nowMs: number): ProviderError {
  const { status } = answer;
  const detail = logSafe(answer.text) || null;
  const label = `${what} → ${status}`;
  const common = statusError(status, label, { retryAfterMs: null, detail });
  if (common) return common;
  const name = errorName(answer);
  if (status === 404 && name !== null)
    return new ProviderError(`${label}: no such charge`, BOLETO_NOT_FOUND, false, status, { detail });
  if (status >= 400 && name !== null)
    return new ProviderError(`${label}: refused by the PSP`, 'PROVIDER_REJECTED', false, status, { detail });
  return outcomeUnknown(what, status, "not an answer in Efí Cobranças' form", answer.text);
}

/** The txid of a BR Code (EMV field 62, sub-field 05), or null. */
export function brCodeTxid(brCode: string): string | null {
  const fields = (text: string): Map<string, string> => {
    const out = new Map<string, string>();
    for (let i = 0; i + 4 <= text.length;) {
      const id = text.slice(i, i + 2);
      const len = Number(text.slice(i + 2, i + 4));
      if (!Number.isInteger(len)) break;
      out.set(id, text.slice(i + 4, i + 4 + len));
      i += 4 + len;
    }
    return out;
  };
  const txid = fields(fields(brCode).get('62') ?? '').get('05');
  return txid && txid !== '***' ? txid : null;
}

const PAID = new Set(['paid', 'settled']);
const CLOSED = new Set(['canceled', 'expired', 'unpaid']);

function boletoOf(d: Detail): ProviderBoleto {
  const billet = d.payment?.banking_billet;
  if (!billet) throw outcomeUnknown('Efí charge', 200, 'the charge is not a boleto');
  const digitableLine = billet.barcode.replace(/\D/g, '');
  if (digitableLine.length !== 47) throw outcomeUnknown('Efí charge', 200, 'the boleto has no 47-digit line');
  const status = PAID.has(d.status) ? 'PAID' : CLOSED.has(d.status) ? 'CANCELLED' : 'REGISTERED';
  const id = String(d.charge_id);
  const copyPaste = billet.pix?.qrcode ?? '';
  const document = d.customer?.cnpj ?? d.customer?.cpf ?? '';
  const name = d.customer?.corporate_name ?? d.customer?.name ?? '';
  const paidAt = status === 'PAID' ? (d.payment?.paid_at ?? null) : null;
  const boleto: ProviderBoleto = {
    id,
    reference: d.custom_id ?? '',
    status,
    bankCode: digitableLine.slice(0, 3),
    nossoNumero: id,
    barcode: digitableLineToBarcode(digitableLine),
    digitableLine,
    dueDate: billet.expire_at.slice(0, 10),
    amountCents: d.total,
    fine: billet.configurations?.fine ? { percentBps: billet.configurations.fine } : null,
    interest: billet.configurations?.interest ? { monthlyBps: billet.configurations.interest } : null,
    graceDays: 0,
    payer: { name, document, email: d.customer?.email ?? null },
    pix: {
      copyPaste,
      qrCodeBase64: (billet.pix?.qrcode_image ?? '').replace(/^data:image\/png;base64,/, ''),
      txid: brCodeTxid(copyPaste) ?? `efi${id}`,
      status: status === 'REGISTERED' ? 'ACTIVE' : 'CLOSED',
    },
    createdAt: d.created_at,
    paidAt,
    cancelledAt: null,
    payment: null,
  };
  if (status === 'PAID' && paidAt) {
    const amountCents = d.payment?.paid_value ?? d.total;
    const paidDate = isoDateInBrasilia(new Date(paidAt));
    const payer: ProviderPayer = {
      name,
      document,
      documentType: document.length === 14 ? 'CNPJ' : 'CPF',
      email: d.customer?.email ?? null,
      phone: null,
      institution: '',
      ispb: '',
      agency: '',
      account: '',
    };
    boleto.payment = {
      via: 'BOLETO',
      paidAt: new Date(paidAt).toISOString(),
      paidDate,
      amountCents,
      expectedAmountCents: d.total,
      fineCents: 0,
      interestCents: 0,
      daysLate: 0,
      late: paidDate > boleto.dueDate,
      amountMismatch: amountCents < d.total ? 'UNDERPAID' : amountCents > d.total ? 'OVERPAID' : null,
      settlement: 'D1',
      creditDate: paidDate,
      endToEndId: null,
      payer,
    };
  }
  return boleto;
}
