/**
 * The sandbox as Efí's API Cobranças, for boletos only (issue 37: a connected merchant's boleto is
 * issued at its own account). Real Efí serves it on its own host (cobrancas.api.efipay.com.br, the
 * SDK's `APIS.DEFAULT`); here one origin stands for both, so it is mounted by app.ts at
 * /cobrancas/v1. The minimal subset the gateway uses (efipay/sdk-node-apis-efi's endpoint names):
 *
 *  - POST /v1/authorize (authorize): HTTP Basic client id and secret, `grant_type=client_credentials`
 *    (JSON, as the SDK sends it, or form); the token is bound to the account those credentials open.
 *  - POST /v1/charge/one-step (createOneStepCharge) with `payment.banking_billet`: a boleto of the
 *    sandbox bank (boletos.ts: the same numbering, FEBRABAN digits and hybrid Pix), paid into the
 *    token's account; `metadata.custom_id` is our reference, `metadata.notification_url` where
 *    the payment is notified.
 *  - GET /v1/charge/:id (detailCharge) and PUT /v1/charge/:id/cancel (cancelCharge): the token's
 *    account's charges only (another account's is 404, as an unknown one).
 *  - GET /v1/charges (listCharges): `charge_type=billet`, `begin_date` and `end_date` (required, the
 *    creation day in Brasília, or the payment day with `date_of=payment`), `custom_id`, `status`
 *    (`waiting`, `paid`, `canceled`), `limit` (≤ 100) and `page`: the gateway finds a boleto by our
 *    reference there (Efí takes no idempotency key, so a retried issue looks before it creates), and
 *    the sweep lists an account's billets paid today to find a lost notice.
 *  - GET /v1/notification/:token (getNotification): what the notification with that token reports.
 *
 * Paying it (POST /sandbox/boletos/:id/pay, by barcode) credits the account it was issued on
 * (balances.ts) and POSTs `notification=<token>` form-encoded to its notification_url, as real
 * Efí does. What the sandbox does not do: Efí's numeric error codes (answers
 * carry the HTTP status as `code`), carnês, cards, links, subscriptions, splits (repasses), and a
 * payment by the hybrid boleto's Pix (refused here: the Efí boleto's Pix side is not modelled).
 */
import express, { Router, type ErrorRequestHandler, type Response } from 'express';
import { randomBytes } from 'node:crypto';
import { formatDigitableLine } from '../../core/boletos';
import { isoDateInBrasilia } from '../../core/boletos/pdf/format';
import type { ProviderBoleto } from '../../core/provider';
import { requestAccount, type SandboxAccounts } from '../accounts';
import { issueBoleto, cancelBoleto } from '../boletos';
import type { SandboxContext } from '../context';
import { SandboxHttpError } from '../errors';
import type { AccessTokens } from '../pixApi/oauth';
import type { BoletoRecord } from '../state';
import { requireEfiToken } from './auth';
import { isObject, onlyKeys } from './bodyChecks';

/** listCharges' `limit` (1..100, default 100 here) and `page` (from 1). */
function listPage(query: Record<string, unknown>): { limit: number; page: number } {
  const number = (v: unknown, name: string, max: number, fallback: number): number => {
    if (v === undefined) return fallback;
    const n = Number(v);
    if (typeof v !== 'string' || !/^\d+$/.test(v) || n < 1 || n > max) throw invalid(`${name} inválido.`);
    return n;
  };
  return { limit: number(query.limit, 'limit', 100, 100), page: number(query.page, 'page', 1_000_000, 1) };
}

/** Efí Cobranças' error form: `{"code", "error", "error_description"}` (code: the HTTP status here). */
export class CobrancasError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string,
  ) {
    super(description);
  }
}

const invalid = (description: string) => new CobrancasError(400, 'validation_error', description);

function send(res: Response, err: CobrancasError): void {
  res.status(err.status).json({ code: err.status, error: err.error, error_description: err.description });
}

/** Efí's charge statuses for our boleto's. */
function efiStatus(boleto: ProviderBoleto): 'waiting' | 'paid' | 'canceled' {
  return boleto.status === 'PAID' ? 'paid' : boleto.status === 'CANCELLED' ? 'canceled' : 'waiting';
}

function chargeOf(ctx: SandboxContext, res: Response, id: string): BoletoRecord {
  const account = requestAccount(res);
  const chargeId = /^[1-9]\d{0,14}$/.test(id) ? Number(id) : NaN;
  for (const rec of ctx.state.boletos.values())
    if (rec.efi?.chargeId === chargeId && rec.efi.accountId === account.id) return rec;
  throw new CobrancasError(404, 'charge_not_found', `Nenhuma cobrança ${id} nesta conta.`);
}

function billet(rec: BoletoRecord) {
  const { boleto } = rec;
  return {
    barcode: formatDigitableLine(boleto.digitableLine),
    pix: { qrcode: boleto.pix.copyPaste, qrcode_image: `data:image/png;base64,${boleto.pix.qrCodeBase64}` },
    link: `https://sandbox.invalid/boletos/${boleto.id}`,
    pdf: { charge: `https://sandbox.invalid/boletos/${boleto.id}.pdf` },
    expire_at: boleto.dueDate,
    configurations: {
      days_to_write_off: 0,
      interest_type: 'monthly',
      interest: boleto.interest?.monthlyBps ?? 0,
      fine: boleto.fine?.percentBps ?? 0,
    },
  };
}

/** GET /v1/charge/:id's `data`; `payment.paid_value`/`paid_at` as Efí's charge list shows them. */
export function chargeDetail(rec: BoletoRecord) {
  const { boleto } = rec;
  return {
    charge_id: rec.efi?.chargeId,
    total: boleto.amountCents,
    status: efiStatus(boleto),
    custom_id: boleto.reference || null,
    created_at: boleto.createdAt,
    notification_url: rec.efi?.notificationUrl ?? null,
    items: [{ name: 'Cobrança', value: boleto.amountCents, amount: 1 }],
    history: [{ message: 'Cobrança criada', created_at: boleto.createdAt }],
    customer: {
      name: boleto.payer.name,
      ...(boleto.payer.document.length === 14
        ? { cnpj: boleto.payer.document, corporate_name: boleto.payer.name }
        : { cpf: boleto.payer.document }),
      email: boleto.payer.email ?? undefined,
    },
    payment: {
      method: 'banking_billet',
      created_at: boleto.createdAt,
      message: null,
      banking_billet: billet(rec),
      paid_at: boleto.payment?.paidAt ?? null,
      paid_value: boleto.payment?.amountCents,
    },
  };
}

interface OneStepBody {
  reference: string;
  amountCents: number;
  dueDate: string;
  payer: { name: string; document: string; email: string | null };
  fineBps: number;
  interestBps: number;
  notificationUrl: string | null;
}

const cents = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) > 0;

function parseOneStep(body: unknown): OneStepBody {
  if (!isObject(body)) throw invalid('O corpo deve ser um objeto JSON.');
  const { items, metadata, payment } = body;
  if (!Array.isArray(items) || items.length === 0) throw invalid('items é obrigatório.');
  let amountCents = 0;
  for (const item of items) {
    if (!isObject(item) || typeof item.name !== 'string' || !cents(item.value))
      throw invalid('Cada item precisa de name e value (inteiro, em centavos).');
    const amount = item.amount ?? 1;
    if (!cents(amount)) throw invalid('items.amount deve ser um inteiro positivo.');
    amountCents += item.value * amount;
  }
  const meta = isObject(metadata) ? metadata : {};
  if (meta.custom_id !== undefined && typeof meta.custom_id !== 'string') throw invalid('custom_id deve ser texto.');
  if (meta.notification_url !== undefined && typeof meta.notification_url !== 'string')
    throw invalid('notification_url deve ser uma URL.');
  if (!isObject(payment) || !isObject(payment.banking_billet))
    throw invalid('payment.banking_billet é obrigatório (só boletos nesta sandbox).');
  onlyKeys(payment, ['banking_billet'], 'payment');
  const b = payment.banking_billet;
  const customer = b.customer;
  if (!isObject(customer)) throw invalid('banking_billet.customer é obrigatório.');
  const company = isObject(customer.juridical_person) ? customer.juridical_person : null;
  const name = company ? company.corporate_name : customer.name;
  const document = company ? company.cnpj : customer.cpf;
  if (typeof name !== 'string' || !name.trim())
    throw invalid('customer.name (ou juridical_person.corporate_name) é obrigatório.');
  if (typeof document !== 'string' || !/^(\d{11}|\d{14})$/.test(document))
    throw invalid('customer.cpf (11 dígitos) ou juridical_person.cnpj (14) é obrigatório.');
  if (typeof b.expire_at !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(b.expire_at))
    throw invalid('banking_billet.expire_at deve ser AAAA-MM-DD.');
  const conf = isObject(b.configurations) ? b.configurations : {};
  const rate = (v: unknown, what: string): number => {
    if (v === undefined) return 0;
    if (!Number.isSafeInteger(v) || (v as number) < 0) throw invalid(`configurations.${what} deve ser um inteiro.`);
    return v as number;
  };
  if (conf.interest_type !== undefined && conf.interest_type !== 'monthly')
    throw invalid('Esta sandbox só aceita interest_type monthly.');
  return {
    reference: (meta.custom_id as string | undefined) ?? '',
    amountCents,
    dueDate: b.expire_at,
    payer: { name, document, email: typeof customer.email === 'string' ? customer.email : null },
    fineBps: rate(conf.fine, 'fine'),
    interestBps: rate(conf.interest, 'interest'),
    notificationUrl: (meta.notification_url as string | undefined) ?? null,
  };
}

/** POSTs the payment's notification (called by boletos.ts payBoleto for an Efí boleto). */
export function notifyEfiBoleto(ctx: SandboxContext, rec: BoletoRecord): void {
  if (!rec.efi?.notificationUrl) return;
  rec.efi.token = randomBytes(16).toString('hex');
  // Form-encoded, as real Efí posts it (`notification=<token>`).
  ctx.callbacks.deliverForm(
    { eventId: `efi_${rec.efi.token}`, subjectId: rec.boleto.id, fields: { notification: rec.efi.token } },
    rec.efi.notificationUrl,
  );
}

export function cobrancasRoutes(ctx: SandboxContext, accounts: SandboxAccounts, tokens: AccessTokens): Router {
  const router = Router();
  router.post(
    '/authorize',
    express.json({ limit: '8kb' }),
    express.urlencoded({ extended: false, limit: '8kb' }),
    (req, res) => {
      const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(req.get('Authorization') ?? '');
      const decoded = match ? Buffer.from(match[1], 'base64').toString('utf8') : '';
      const colon = decoded.indexOf(':');
      const account = colon > 0 ? accounts.authenticate(decoded.slice(0, colon), decoded.slice(colon + 1)) : null;
      if (!account) throw new CobrancasError(401, 'invalid_client', 'Credenciais inválidas.');
      if ((req.body as { grant_type?: unknown } | undefined)?.grant_type !== 'client_credentials')
        throw invalid('grant_type deve ser client_credentials.');
      const { access_token, expires_in } = tokens.issue(account, ['cobrancas']);
      res.json({ access_token, token_type: 'Bearer', expires_in });
    },
  );
  router.use(requireEfiToken(tokens));
  router.use(express.json({ limit: '64kb' }));
  router.post('/charge/one-step', async (req, res) => {
    const account = requestAccount(res);
    const input = parseOneStep(req.body);
    // Efí takes no idempotency key: every POST is a new charge.
    const { boleto } = await issueBoleto(ctx, `efi:${account.id}:${randomBytes(12).toString('hex')}`, {
      reference: input.reference,
      amountCents: input.amountCents,
      dueDate: input.dueDate,
      payer: input.payer,
      fine: input.fineBps > 0 ? { percentBps: input.fineBps } : null,
      interest: input.interestBps > 0 ? { monthlyBps: input.interestBps } : null,
      graceDays: 0,
      callbackUrl: '',
      merchantName: account.name,
    });
    const rec = ctx.state.boletos.get(boleto.id) as BoletoRecord;
    // Numbered with no await from here to the store, so two issues never share a number.
    let chargeId = 1;
    for (const r of ctx.state.boletos.values()) if (r.efi) chargeId = Math.max(chargeId, r.efi.chargeId + 1);
    rec.efi = { chargeId, accountId: account.id, notificationUrl: input.notificationUrl, token: null };
    ctx.journal.boleto(rec);
    res.json({
      code: 200,
      data: {
        charge_id: chargeId,
        total: boleto.amountCents,
        status: 'waiting',
        custom_id: input.reference || null,
        payment: 'banking_billet',
        ...billet(rec),
      },
    });
  });
  // GET /v1/charges (listCharges): charge_type, begin_date and end_date are required (the creation
  // day's range, in Brasília), custom_id narrows it; the token's account's boletos only.
  router.get('/charges', (req, res) => {
    const account = requestAccount(res);
    const { charge_type, begin_date, end_date, custom_id, status, date_of } = req.query;
    const day = /^\d{4}-\d{2}-\d{2}$/;
    if (charge_type !== 'billet') throw invalid('charge_type é obrigatório (esta sandbox só tem billet).');
    if (typeof begin_date !== 'string' || !day.test(begin_date) || typeof end_date !== 'string' || !day.test(end_date))
      throw invalid('begin_date e end_date (AAAA-MM-DD) são obrigatórios.');
    if (custom_id !== undefined && typeof custom_id !== 'string') throw invalid('custom_id deve ser texto.');
    if (status !== undefined && !['waiting', 'paid', 'canceled'].includes(String(status)))
      throw invalid('status deve ser waiting, paid ou canceled.');
    if (date_of !== undefined && date_of !== 'creation' && date_of !== 'payment')
      throw invalid('date_of deve ser creation ou payment.');
    const { limit, page } = listPage(req.query);
    const data = [...ctx.state.boletos.values()]
      .filter((r) => r.efi?.accountId === account.id)
      .filter((r) => custom_id === undefined || r.boleto.reference === custom_id)
      .filter((r) => status === undefined || efiStatus(r.boleto) === status)
      .filter((r) => {
        // date_of=payment: the day it was paid (an unpaid charge has none); else the creation day.
        const at = date_of === 'payment' ? r.boleto.paidAt : r.boleto.createdAt;
        if (!at) return false;
        const when = isoDateInBrasilia(new Date(at));
        return when >= begin_date && when <= end_date;
      })
      .sort((a, b) => a.boleto.createdAt.localeCompare(b.boleto.createdAt) || a.boleto.id.localeCompare(b.boleto.id))
      .slice((page - 1) * limit, page * limit)
      .map((rec) => {
        const d = chargeDetail(rec);
        return {
          id: d.charge_id,
          total: d.total,
          status: d.status,
          custom_id: d.custom_id,
          created_at: d.created_at,
          customer: d.customer,
          payment: {
            payment_method: 'banking_billet',
            paid_at: d.payment.paid_at,
            banking_billet: {
              barcode: d.payment.banking_billet.barcode,
              link: d.payment.banking_billet.link,
              expire_at: d.payment.banking_billet.expire_at,
              pdf: d.payment.banking_billet.pdf,
            },
          },
        };
      });
    res.json({ code: 200, data });
  });
  router.get('/charge/:id', (req, res) => {
    res.json({ code: 200, data: chargeDetail(chargeOf(ctx, res, req.params.id)) });
  });
  router.put('/charge/:id/cancel', (req, res) => {
    const rec = chargeOf(ctx, res, req.params.id);
    if (rec.boleto.status === 'PAID')
      throw new CobrancasError(400, 'charge_not_cancelable', 'A cobrança já foi paga e não pode ser cancelada.');
    cancelBoleto(ctx, rec.boleto.id);
    res.json({ code: 200 });
  });
  router.get('/notification/:token', (req, res) => {
    const account = requestAccount(res);
    const rec = [...ctx.state.boletos.values()].find(
      (r) => r.efi?.token && r.efi.token === req.params.token && r.efi.accountId === account.id,
    );
    if (!rec?.efi) throw new CobrancasError(404, 'notification_not_found', 'Notificação desconhecida.');
    res.json({
      code: 200,
      data: [
        {
          id: 1,
          type: 'charge',
          custom_id: rec.boleto.reference || null,
          status: { current: efiStatus(rec.boleto), previous: 'waiting' },
          identifiers: { charge_id: rec.efi.chargeId },
          value: rec.boleto.payment?.amountCents,
          created_at: rec.boleto.paidAt ?? rec.boleto.createdAt,
        },
      ],
    });
  });
  router.use((_req, res) => send(res, new CobrancasError(404, 'not_found', 'Nenhum recurso neste caminho.')));
  const errors: ErrorRequestHandler = (err: unknown, _req, res, _next) => {
    if (err instanceof CobrancasError) return send(res, err);
    if (err instanceof SandboxHttpError && err.status < 500)
      return send(res, new CobrancasError(err.status, 'validation_error', err.message));
    const status = (err as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500)
      return send(res, invalid('O corpo da requisição não pôde ser lido.'));
    ctx.logger.error({ err }, 'efi cobrancas route internal error');
    send(res, new CobrancasError(500, 'internal_error', 'Ocorreu um erro inesperado.'));
  };
  router.use(errors);
  return router;
}
