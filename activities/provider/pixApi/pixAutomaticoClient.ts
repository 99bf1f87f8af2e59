/**
 * The receiver's side of Pix Automático in API Pix (BCB, release 2.9.0): the recurrence (`rec`),
 * its QR location (`locrec`), the journey-1 request to the payer's PSP (`solicrec`), each cycle's
 * charge (`cobr`) with its retries, and the two webhooks. Answers are checked (recSchemas.ts) and
 * given in the gateway's words (core/pixAutomatico/types.ts); failures are ProviderErrors under
 * our codes (errors.ts: 404 not found, other 4xx problems refused, 5xx/timeouts transient), the
 * PSP's text in `detail` only.
 *
 * Idempotency, since an activity is retried after a lost answer:
 *  - `PUT /cobr/{txid}` under the txid of our cycle id (apiPixIds.cycleTxidFor): a retry addresses
 *    the same cobr; when the PSP refuses the second PUT (it exists, or moved on), the cobr it has
 *    under that txid is the answer if it charges what we asked (same rec, date and amount);
 *  - `POST /rec` takes no id or key of ours. Its `vinculo.contrato` is our subscription's
 *    (apiPixIds.recContractFor), so a create first lists the debtor's recurrences created since the
 *    first attempt could have been sent (GET /rec filtered by the debtor's document, every page)
 *    and answers the one with our contract; only when there is none does it POST. An activity
 *    runs once at a time per subscription, so the read and the create do not race each other; a
 *    PSP whose list lags its creates could still yield a second rec, which the workflow would see
 *    (two recs with one contract) and cancel;
 *  - cancellations (PATCH status CANCELADA) and a retry order are answered by the resource when the
 *    PSP refuses them because they already happened.
 */
import { z } from 'zod';
import { ProviderError, type RecurrenceProvider } from '../../../core/provider';
import type {
  CreateAuthorizationRequest,
  CreateCycleChargeRequest,
  CreateRecurrenceRequest,
  ProviderAuthorizationRequest,
  ProviderCycleCharge,
  ProviderRecurrence,
  ProviderRecurrenceLocation,
  RecurrenceDebtor,
} from '../../../core/pixAutomatico/types';
import { ACCOUNT_TYPE_TO_WIRE } from '../../../core/pixAutomatico/wireNames';
import { COBR_TXID, ID_REC } from '../../../core/pixAutomatico/notifications';
import type { AuthorizedCaller, CallSpec } from './authorizedCall';
import { id, sameId, valid } from './checks';
import { outcomeUnknown, PixApiErrorCodes, type OperationCodes } from './errors';
import {
  amountOf,
  recRequestOf,
  toAuthorizationRequest,
  toCycleCharge,
  toLocation,
  toRecurrence,
} from './pixAutomaticoMapping';
import { cobrRequestSchema, recRequestSchema, solicRecRequestSchema } from './recRequests';
import {
  cobrSchema,
  locRecSchema,
  recPageSchema,
  recSchema,
  recWebhookSchema,
  solicRecSchema,
  type CobR,
  type Rec,
  type RecWebhook,
} from './recSchemas';
import { webhookUrlSchema } from './requests';

const REC: OperationCodes = { refused: PixApiErrorCodes.recRefused, notFound: PixApiErrorCodes.recNotFound };
const LOCREC: OperationCodes = { refused: PixApiErrorCodes.locRecRefused, notFound: PixApiErrorCodes.locRecNotFound };
const SOLICREC: OperationCodes = {
  refused: PixApiErrorCodes.solicRecRefused,
  notFound: PixApiErrorCodes.solicRecNotFound,
};
const COBR: OperationCodes = { refused: PixApiErrorCodes.cobrRefused, notFound: PixApiErrorCodes.cobrNotFound };
const WEBHOOK: OperationCodes = {
  refused: PixApiErrorCodes.webhookRefused,
  notFound: PixApiErrorCodes.webhookNotFound,
};

const ID_SOLIC_REC = /^[a-zA-Z0-9]{29}$/;
/** The lookup before a create reaches this far around the first attempt: the PSP's clock is not ours. */
const CLOCK_MARGIN_MS = 60 * 60 * 1000;
/** A debtor with more recurrences than this many pages is no subscriber of ours: stop. */
const MAX_PAGES = 100;

export class PixAutomaticoClient implements RecurrenceProvider {
  constructor(
    private readonly caller: AuthorizedCaller,
    private readonly now: () => number = Date.now,
    private readonly pageSize = 1000,
  ) {}

  // --- locrec -------------------------------------------------------------------------------

  /** A new location for a recurrence's QR (journeys 2 and 3): POST /locrec, no body. */
  async createLocation(): Promise<ProviderRecurrenceLocation> {
    const loc = await this.required({
      method: 'POST',
      path: '/locrec',
      schema: locRecSchema,
      route: 'POST /locrec',
      codes: LOCREC,
    });
    return toLocation(loc);
  }

  /** The location, or null when the PSP has none under this id. */
  async getLocation(locationId: number): Promise<ProviderRecurrenceLocation | null> {
    const loc = await this.caller.call({
      method: 'GET',
      path: `/locrec/${locId(locationId)}`,
      schema: locRecSchema,
      route: 'GET /locrec/{id}',
      codes: LOCREC,
      nullOnNotFound: 'NaoEncontrado',
    });
    return loc && toLocation(sameId(loc, String(loc.id), String(locationId), 'GET /locrec/{id}'));
  }

  // --- rec ----------------------------------------------------------------------------------

  /**
   * Creates the recurrence, or finds the one an earlier attempt created (see the file comment):
   * `firstAttemptAt` is when the first attempt for this contract may have been sent (RFC 3339).
   */
  async createRecurrence(req: CreateRecurrenceRequest, firstAttemptAt: string): Promise<ProviderRecurrence> {
    const body = valid(recRequestSchema, recRequestOf(req), 'rec');
    const existing = await this.findRecurrenceByContract(req.contract, req.debtor, firstAttemptAt);
    if (existing) return existing;
    const rec = await this.required({
      method: 'POST',
      path: '/rec',
      body,
      schema: recSchema,
      route: 'POST /rec',
      codes: REC,
    });
    if (rec.vinculo.contrato !== body.vinculo.contrato)
      throw outcomeUnknown('API Pix POST /rec', 201, 'the answer is about another contract');
    return toRecurrence(rec);
  }

  /**
   * The recurrence whose `vinculo.contrato` is ours, created from `since` on, among the debtor's
   * (GET /rec by CPF or CNPJ, every page); null when there is none.
   */
  async findRecurrenceByContract(
    contract: string,
    debtor: RecurrenceDebtor,
    since: string,
  ): Promise<ProviderRecurrence | null> {
    const sinceMs = Date.parse(since);
    if (!Number.isFinite(sinceMs))
      throw new ProviderError('API Pix request not sent: since is no instant', PixApiErrorCodes.invalidRequest, false);
    const inicio = new Date(sinceMs - CLOCK_MARGIN_MS).toISOString();
    const fim = new Date(Math.max(this.now(), sinceMs) + CLOCK_MARGIN_MS).toISOString();
    const filter: Record<string, string> =
      debtor.documentType === 'CPF' ? { cpf: debtor.document } : { cnpj: debtor.document };
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer = await this.required({
        method: 'GET',
        path: '/rec',
        query: {
          inicio,
          fim,
          ...filter,
          'paginacao.paginaAtual': String(page),
          'paginacao.itensPorPagina': String(this.pageSize),
        },
        schema: recPageSchema,
        route: 'GET /rec',
        codes: REC,
      });
      const { paginaAtual, quantidadeDePaginas } = answer.parametros.paginacao;
      if (paginaAtual !== page)
        throw outcomeUnknown('API Pix GET /rec', 200, `asked for page ${page}, the PSP answered page ${paginaAtual}`);
      const ours = answer.recs.find((r) => r.vinculo.contrato === contract);
      if (ours) return toRecurrence(ours);
      if (page + 1 >= quantidadeDePaginas) return null;
    }
    throw outcomeUnknown('API Pix GET /rec', 200, `more than ${MAX_PAGES} pages of one debtor's recurrences`);
  }

  /**
   * The recurrence, or null when the PSP has none under this id. With the txid of a journey-3 cob,
   * the PSP answers the composite QR of that cob and the recurrence in `qrCode`.
   */
  async getRecurrence(idRec: string, opts: { firstChargeTxid?: string } = {}): Promise<ProviderRecurrence | null> {
    const rec = await this.caller.call({
      method: 'GET',
      path: `/rec/${id(idRec, ID_REC, 'idRec')}`,
      query: opts.firstChargeTxid ? { txid: id(opts.firstChargeTxid, COBR_TXID, 'txid') } : undefined,
      schema: recSchema,
      route: 'GET /rec/{idRec}',
      codes: REC,
      nullOnNotFound: 'NaoEncontrado',
    });
    return rec && toRecurrence(sameId(rec, rec.idRec, idRec, 'GET /rec/{idRec}'));
  }

  /** Links a location (for the QR) to a recurrence created without one: PATCH /rec/{idRec} {loc}. */
  async linkLocation(idRec: string, locationId: number): Promise<ProviderRecurrence> {
    const rec = await this.required({
      method: 'PATCH',
      path: `/rec/${id(idRec, ID_REC, 'idRec')}`,
      body: { loc: Number(locId(locationId)) },
      schema: recSchema,
      route: 'PATCH /rec/{idRec}',
      codes: REC,
    });
    return toRecurrence(sameId(rec, rec.idRec, idRec, 'PATCH /rec/{idRec}'));
  }

  /**
   * Cancels the recurrence as its receiver (PATCH status CANCELADA) and answers its final state.
   * Idempotent: a refusal of a recurrence already CANCELADA, REJEITADA or EXPIRADA answers it as it is.
   */
  async cancelRecurrence(idRec: string): Promise<ProviderRecurrence> {
    const rec = await this.required<Rec | ProviderRecurrence>({
      method: 'PATCH',
      path: `/rec/${id(idRec, ID_REC, 'idRec')}`,
      body: { status: 'CANCELADA' },
      schema: recSchema,
      route: 'PATCH /rec/{idRec}',
      codes: REC,
    }).catch(async (err: unknown) => {
      if (!refused(err, PixApiErrorCodes.recRefused)) throw err;
      const existing = await this.getRecurrence(idRec);
      if (existing && existing.status !== 'CREATED' && existing.status !== 'APPROVED') return existing;
      throw err;
    });
    if (!('vinculo' in rec)) return rec;
    return toRecurrence(sameId(rec, rec.idRec, idRec, 'PATCH /rec/{idRec}'));
  }

  // --- solicrec (journey 1) -----------------------------------------------------------------

  /**
   * Sends the authorisation request to the payer's PSP. Not idempotent by itself: the standard
   * keeps one active request per recurrence, so a create retried after a lost answer is refused
   * (SOLICREC_REFUSED) and the request it refers to has an id we never saw. The caller then reads
   * the recurrence (GET /rec/{idRec}), whose status says whether the payer answered; a request
   * left pending expires on its own (`expiresAt`).
   */
  async createAuthorizationRequest(req: CreateAuthorizationRequest): Promise<ProviderAuthorizationRequest> {
    const { payerAccount: acc } = req;
    const body = valid(
      solicRecRequestSchema,
      {
        idRec: req.idRec,
        calendario: { dataExpiracaoSolicitacao: req.expiresAt },
        destinatario: {
          conta: acc.account,
          ispbParticipante: acc.ispb,
          ...(acc.branch ? { agencia: acc.branch } : {}),
          ...(acc.documentType === 'CPF' ? { cpf: acc.document } : { cnpj: acc.document }),
        },
      },
      'solicrec',
    );
    const solic = await this.required({
      method: 'POST',
      path: '/solicrec',
      body,
      schema: solicRecSchema,
      route: 'POST /solicrec',
      codes: SOLICREC,
    });
    if (solic.idRec !== req.idRec)
      throw outcomeUnknown('API Pix POST /solicrec', 201, 'the answer is about another rec');
    return toAuthorizationRequest(solic);
  }

  /** The authorisation request, or null when the PSP has none under this id. */
  async getAuthorizationRequest(idSolicRec: string): Promise<ProviderAuthorizationRequest | null> {
    const solic = await this.caller.call({
      method: 'GET',
      path: `/solicrec/${id(idSolicRec, ID_SOLIC_REC, 'idSolicRec')}`,
      schema: solicRecSchema,
      route: 'GET /solicrec/{idSolicRec}',
      codes: SOLICREC,
      nullOnNotFound: 'NaoEncontrado',
    });
    return solic && toAuthorizationRequest(sameId(solic, solic.idSolicRec, idSolicRec, 'GET /solicrec/{idSolicRec}'));
  }

  /** Cancels a pending authorisation request; one already answered, expired or cancelled is answered as it is. */
  async cancelAuthorizationRequest(idSolicRec: string): Promise<ProviderAuthorizationRequest> {
    const solic = await this.required({
      method: 'PATCH',
      path: `/solicrec/${id(idSolicRec, ID_SOLIC_REC, 'idSolicRec')}`,
      body: { status: 'CANCELADA' },
      schema: solicRecSchema,
      route: 'PATCH /solicrec/{idSolicRec}',
      codes: SOLICREC,
    }).catch(async (err: unknown) => {
      if (!refused(err, PixApiErrorCodes.solicRecRefused)) throw err;
      const existing = await this.getAuthorizationRequest(idSolicRec);
      if (existing && ['ACCEPTED', 'REJECTED', 'EXPIRED', 'CANCELLED'].includes(existing.status)) return existing;
      throw err;
    });
    if (!('idSolicRec' in solic)) return solic;
    return toAuthorizationRequest(sameId(solic, solic.idSolicRec, idSolicRec, 'PATCH /solicrec/{idSolicRec}'));
  }

  // --- cobr ---------------------------------------------------------------------------------

  /** Creates the cycle's charge under our txid, or answers the one a lost answer created (file comment). */
  async putCycleCharge(txid: string, req: CreateCycleChargeRequest): Promise<ProviderCycleCharge> {
    const path = `/cobr/${id(txid, COBR_TXID, 'txid')}`;
    const body = valid(
      cobrRequestSchema,
      {
        idRec: req.idRec,
        calendario: { dataDeVencimento: req.dueDate },
        valor: { original: amountOf(req.amountCents, 'amountCents') },
        ajusteDiaUtil: req.adjustToBusinessDay,
        ...(req.info ? { infoAdicional: req.info } : {}),
        recebedor: {
          conta: req.receiverAccount.account,
          tipoConta: ACCOUNT_TYPE_TO_WIRE[req.receiverAccount.accountType],
          ...(req.receiverAccount.branch ? { agencia: req.receiverAccount.branch } : {}),
        },
      },
      'cobr',
    );
    const cobr = await this.required<CobR | ProviderCycleCharge>({
      method: 'PUT',
      path,
      body,
      schema: cobrSchema,
      route: 'PUT /cobr/{txid}',
      codes: COBR,
    }).catch(async (err: unknown) => {
      if (!refused(err, PixApiErrorCodes.cobrRefused)) throw err;
      const existing = await this.getCycleCharge(txid);
      if (
        existing &&
        existing.idRec === body.idRec &&
        existing.dueDate === body.calendario.dataDeVencimento &&
        existing.amountCents === req.amountCents
      )
        return existing;
      throw err;
    });
    if (!('valor' in cobr)) return cobr;
    return toCycleCharge(sameId(cobr, cobr.txid, txid, 'PUT /cobr/{txid}'));
  }

  /** The cycle charge, or null when the PSP has none under this txid. */
  async getCycleCharge(txid: string): Promise<ProviderCycleCharge | null> {
    const cobr = await this.caller.call({
      method: 'GET',
      path: `/cobr/${id(txid, COBR_TXID, 'txid')}`,
      schema: cobrSchema,
      route: 'GET /cobr/{txid}',
      codes: COBR,
      nullOnNotFound: 'NaoEncontrado',
    });
    return cobr && toCycleCharge(sameId(cobr, cobr.txid, txid, 'GET /cobr/{txid}'));
  }

  /**
   * Cancels the cycle charge (PATCH status CANCELADA), which the rules allow until the day before
   * the first settlement attempt. A charge that is no longer CRIADA or ATIVA (paid, rejected,
   * expired, cancelled) is answered as it is, so a paid cycle stays paid.
   */
  async cancelCycleCharge(txid: string): Promise<ProviderCycleCharge> {
    const cobr = await this.required<CobR | ProviderCycleCharge>({
      method: 'PATCH',
      path: `/cobr/${id(txid, COBR_TXID, 'txid')}`,
      body: { status: 'CANCELADA' },
      schema: cobrSchema,
      route: 'PATCH /cobr/{txid}',
      codes: COBR,
    }).catch(async (err: unknown) => {
      if (!refused(err, PixApiErrorCodes.cobrRefused)) throw err;
      const existing = await this.getCycleCharge(txid);
      if (existing && existing.status !== 'CREATED' && existing.status !== 'ACTIVE') return existing;
      throw err;
    });
    if (!('valor' in cobr)) return cobr;
    return toCycleCharge(sameId(cobr, cobr.txid, txid, 'PATCH /cobr/{txid}'));
  }

  /**
   * Orders a retry of a rejected cycle on `settlementDate` (YYYY-MM-DD, a future date): only under
   * PERMITE_3R_7D, at most 3 within 7 days, one pending at a time (the PSP refuses otherwise,
   * COBR_REFUSED). Idempotent: when the PSP refuses a retry it already holds an attempt for on that
   * date, that charge is the answer.
   */
  async retryCycleCharge(txid: string, settlementDate: string): Promise<ProviderCycleCharge> {
    const cobr = await this.required<CobR | ProviderCycleCharge>({
      method: 'POST',
      path: `/cobr/${id(txid, COBR_TXID, 'txid')}/retentativa/${valid(z.iso.date(), settlementDate, 'data')}`,
      schema: cobrSchema,
      route: 'POST /cobr/{txid}/retentativa/{data}',
      codes: COBR,
    }).catch(async (err: unknown) => {
      if (!refused(err, PixApiErrorCodes.cobrRefused)) throw err;
      const existing = await this.getCycleCharge(txid);
      if (existing?.attempts.some((a) => a.kind === 'RECEIVER_RETRY' && a.settlementDate === settlementDate))
        return existing;
      throw err;
    });
    if (!('valor' in cobr)) return cobr;
    return toCycleCharge(sameId(cobr, cobr.txid, txid, 'POST /cobr/{txid}/retentativa/{data}'));
  }

  // --- webhooks -----------------------------------------------------------------------------

  /** Registers where the PSP notifies recurrences: it POSTs `{recs: […]}` to `webhookUrl` + "/rec". */
  putRecurrenceWebhook(webhookUrl: string): Promise<void> {
    return this.putWebhook('/webhookrec', webhookUrl);
  }

  /** The recurrences' webhook, or null when none is registered. */
  getRecurrenceWebhook(): Promise<RecWebhook | null> {
    return this.getWebhook('/webhookrec');
  }

  /** Registers where the PSP notifies cycle charges: it POSTs `{cobsr: […]}` to `webhookUrl` + "/cobr". */
  putCycleChargeWebhook(webhookUrl: string): Promise<void> {
    return this.putWebhook('/webhookcobr', webhookUrl);
  }

  /** The cycle charges' webhook, or null when none is registered. */
  getCycleChargeWebhook(): Promise<RecWebhook | null> {
    return this.getWebhook('/webhookcobr');
  }

  private async putWebhook(path: '/webhookrec' | '/webhookcobr', webhookUrl: string): Promise<void> {
    const url = valid(webhookUrlSchema, webhookUrl, 'webhookUrl');
    await this.caller.call({
      method: 'PUT',
      path,
      body: { webhookUrl: url },
      schema: null,
      route: `PUT ${path}`,
      codes: WEBHOOK,
    });
  }

  private getWebhook(path: '/webhookrec' | '/webhookcobr'): Promise<RecWebhook | null> {
    return this.caller.call({
      method: 'GET',
      path,
      schema: recWebhookSchema,
      route: `GET ${path}`,
      codes: WEBHOOK,
      nullOnNotFound: 'NaoEncontrado',
    });
  }

  private async required<T>(spec: CallSpec<T> & { schema: z.ZodType<T> }): Promise<T> {
    const answer = await this.caller.call<T>(spec);
    if (answer === null) throw new Error('unreachable: null without nullOnNotFound');
    return answer;
  }
}

function refused(err: unknown, code: string): boolean {
  return err instanceof ProviderError && err.code === code;
}

function locId(locationId: number): string {
  if (!Number.isSafeInteger(locationId) || locationId < 1)
    throw new ProviderError(
      'API Pix request not sent: a location id is a positive integer',
      PixApiErrorCodes.invalidRequest,
      false,
    );
  return String(locationId);
}
