/**
 * The gateway's client of a PSP's API Pix v2 (BCB standard, release 2.9.0): immediate charges
 * (cob), received Pix, devoluções and the webhook registration, the operations the gateway's
 * Pix collection needs and no others. Typed with the standard's own names (schemas.ts); every
 * answer is checked, every failure is a ProviderError (errors.ts).
 *
 * Writes are idempotent by id: the caller derives txid and devolução id from its own ids
 * (core/pix/apiPixIds.ts), so a retried PUT addresses the same cob or devolução. Pix Automático
 * (recurrences and their cycle charges) is `automatico` (pixAutomaticoClient.ts).
 */
import type { z } from 'zod';
import { ProviderError } from '../../../core/provider';
import { AuthorizedCaller, type CallSpec } from './authorizedCall';
import { outcomeUnknown, PixApiErrorCodes, type OperationCodes } from './errors';
import {
  cobRequestSchema,
  devolucaoRequestSchema,
  pixRangeSchema,
  webhookUrlSchema,
  type CobRequest,
  type DevolucaoRequest,
  type PixRange,
} from './requests';
import {
  DEVOLUCAO_ID,
  END_TO_END_ID,
  TXID,
  cobSchema,
  devolucaoSchema,
  pixPageSchema,
  pixSchema,
  webhookSchema,
  type Cob,
  type Devolucao,
  type Pix,
  type Webhook,
} from './schemas';
import { PixApiConnection, type PixApiConnectionOptions } from './connection';
import { id, key, sameId, valid } from './checks';
import { PixAutomaticoClient } from './pixAutomaticoClient';

export type PixApiClientOptions = (
  | PixApiConnectionOptions
  /** The account's connection, shared with the PSP's own routes (connection.ts). */
  | { connection: PixApiConnection }
) & {
  /** The PSP's API Pix base, version included: https://psp.example/api/v2 */
  baseUrl: string;
  /** `paginacao.itensPorPagina` asked of GET /pix (the standard's maximum is 1000). */
  pageSize?: number;
};

const COB: OperationCodes = { refused: PixApiErrorCodes.cobRefused, notFound: PixApiErrorCodes.cobNotFound };
const PIX: OperationCodes = { refused: PixApiErrorCodes.rejected, notFound: PixApiErrorCodes.pixNotFound };
const DEVOLUCAO: OperationCodes = {
  refused: PixApiErrorCodes.devolucaoRefused,
  notFound: PixApiErrorCodes.devolucaoNotFound,
};
const WEBHOOK: OperationCodes = {
  refused: PixApiErrorCodes.webhookRefused,
  notFound: PixApiErrorCodes.webhookNotFound,
};

const MAX_PAGE_SIZE = 1000;
/** A PSP claiming more pages than this (a million Pix at the default size) has a bug; we stop. */
const MAX_PAGES = 10_000;

export class PixApiClient {
  readonly connection: PixApiConnection;
  /** The Pix Automático routes (rec, locrec, solicrec, cobr and their webhooks), same connection and base. */
  readonly automatico: PixAutomaticoClient;
  private readonly caller: AuthorizedCaller;
  private readonly pageSize: number;

  constructor(opts: PixApiClientOptions) {
    this.connection = 'connection' in opts ? opts.connection : new PixApiConnection(opts);
    this.caller = this.connection.caller(opts.baseUrl, 'the API Pix base URL');
    this.pageSize = opts.pageSize ?? MAX_PAGE_SIZE;
    if (!Number.isInteger(this.pageSize) || this.pageSize < 1 || this.pageSize > MAX_PAGE_SIZE)
      throw new Error(`PixApiClient: pageSize must be 1 to ${MAX_PAGE_SIZE}`);
    this.automatico = new PixAutomaticoClient(this.caller, this.connection.now, this.pageSize);
  }

  /**
   * Creates the cob, or finds it: a retried PUT of a cob that was created and then paid or
   * removed is refused by the PSP ("already exists, not ATIVA"); when the cob it has under this
   * txid collects what we asked for (same amount, same key), that cob is the answer.
   */
  async putCob(txid: string, cob: CobRequest): Promise<Cob> {
    const body = valid(cobRequestSchema, cob, 'cob');
    const answer = await this.required<Cob>({
      method: 'PUT',
      path: `/cob/${id(txid, TXID, 'txid')}`,
      body,
      schema: cobSchema,
      route: 'PUT /cob/{txid}',
      codes: COB,
    }).catch(async (err: unknown) => {
      if (!(err instanceof ProviderError) || err.code !== PixApiErrorCodes.cobRefused) throw err;
      const existing = await this.getCob(txid);
      if (existing && existing.valor.original === body.valor.original && existing.chave === body.chave) return existing;
      throw err;
    });
    return sameId(answer, answer.txid, txid, 'PUT /cob/{txid}');
  }

  /** The cob, or null when the PSP says it has none under this txid. */
  async getCob(txid: string): Promise<Cob | null> {
    const cob = await this.caller.call({
      method: 'GET',
      path: `/cob/${id(txid, TXID, 'txid')}`,
      schema: cobSchema,
      route: 'GET /cob/{txid}',
      codes: COB,
      nullOnNotFound: 'CobNaoEncontrado',
    });
    return cob && sameId(cob, cob.txid, txid, 'GET /cob/{txid}');
  }

  /**
   * Removes an ATIVA cob (PATCH status REMOVIDA_PELO_USUARIO_RECEBEDOR) so it can no longer be
   * paid, and answers its final state. Idempotent: a cob that is no longer ATIVA (paid, already
   * removed, removed by the PSP) is answered as it is, so a paid charge stays paid.
   */
  async removeCob(txid: string): Promise<Cob> {
    const path = `/cob/${id(txid, TXID, 'txid')}`;
    const answer = await this.required<Cob>({
      method: 'PATCH',
      path,
      body: { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' },
      schema: cobSchema,
      route: 'PATCH /cob/{txid}',
      codes: COB,
    }).catch(async (err: unknown) => {
      if (!(err instanceof ProviderError) || err.code !== PixApiErrorCodes.cobRefused) throw err;
      const existing = await this.getCob(txid);
      if (existing && existing.status !== 'ATIVA') return existing;
      throw err;
    });
    return sameId(answer, answer.txid, txid, 'PATCH /cob/{txid}');
  }

  /** A received Pix, or null when the PSP has none with this endToEndId. */
  async getPix(e2eid: string): Promise<Pix | null> {
    const pix = await this.caller.call({
      method: 'GET',
      path: `/pix/${id(e2eid, END_TO_END_ID, 'e2eid')}`,
      schema: pixSchema,
      route: 'GET /pix/{e2eid}',
      codes: PIX,
      nullOnNotFound: 'PixNaoEncontrado',
    });
    return pix && sameId(pix, pix.endToEndId, e2eid, 'GET /pix/{e2eid}');
  }

  /**
   * Every Pix received in [inicio, fim] (optionally of one txid), all pages followed. A Pix seen
   * on two pages (the list moved while we read it) is returned once.
   */
  async listPix(range: PixRange): Promise<Pix[]> {
    const { inicio, fim, txid } = valid(pixRangeSchema, range, 'range');
    const seen = new Map<string, Pix>();
    for (let page = 0; ; page++) {
      const query: Record<string, string> = {
        inicio,
        fim,
        'paginacao.paginaAtual': String(page),
        'paginacao.itensPorPagina': String(this.pageSize),
      };
      if (txid !== undefined) query.txid = txid;
      const answer = await this.required({
        method: 'GET',
        path: '/pix',
        query,
        schema: pixPageSchema,
        route: 'GET /pix',
        codes: PIX,
      });
      const { paginaAtual, quantidadeDePaginas } = answer.parametros.paginacao;
      // Another page than the one asked for would make us skip or loop: the list is unreliable.
      if (paginaAtual !== page)
        throw outcomeUnknown('API Pix GET /pix', 200, `asked for page ${page}, the PSP answered page ${paginaAtual}`);
      for (const pix of answer.pix ?? []) seen.set(pix.endToEndId, pix);
      if (page + 1 >= quantidadeDePaginas) return [...seen.values()];
      if (page + 1 >= MAX_PAGES)
        throw outcomeUnknown('API Pix GET /pix', 200, `more than ${MAX_PAGES} pages; ask for a shorter range`);
    }
  }

  /**
   * Asks for a devolução of (part of) a received Pix; its status follows by getDevolucao or the
   * callback. Idempotent by id: the standard refuses an id already used for this Pix
   * (PixDevolucaoInvalida), so when a retried request is refused and the PSP has a devolução of
   * the same amount under our id, that devolução is the answer.
   */
  async putDevolucao(e2eid: string, devolucaoId: string, devolucao: DevolucaoRequest): Promise<Devolucao> {
    const path = `/pix/${id(e2eid, END_TO_END_ID, 'e2eid')}/devolucao/${id(devolucaoId, DEVOLUCAO_ID, 'devolução id')}`;
    const body = valid(devolucaoRequestSchema, devolucao, 'devolução');
    const answer = await this.required<Devolucao>({
      method: 'PUT',
      path,
      body,
      schema: devolucaoSchema,
      route: 'PUT /pix/{e2eid}/devolucao/{id}',
      codes: DEVOLUCAO,
    }).catch(async (err: unknown) => {
      if (!(err instanceof ProviderError) || err.code !== PixApiErrorCodes.devolucaoRefused) throw err;
      const existing = await this.getDevolucao(e2eid, devolucaoId);
      if (existing && existing.valor === body.valor) return existing;
      throw err;
    });
    return sameId(answer, answer.id, devolucaoId, 'PUT /pix/{e2eid}/devolucao/{id}');
  }

  /** A devolução, or null when the PSP has none under this id for this Pix. */
  async getDevolucao(e2eid: string, devolucaoId: string): Promise<Devolucao | null> {
    const path = `/pix/${id(e2eid, END_TO_END_ID, 'e2eid')}/devolucao/${id(devolucaoId, DEVOLUCAO_ID, 'devolução id')}`;
    const answer = await this.caller.call({
      method: 'GET',
      path,
      schema: devolucaoSchema,
      route: 'GET /pix/{e2eid}/devolucao/{id}',
      codes: DEVOLUCAO,
      nullOnNotFound: 'PixDevolucaoNaoEncontrada',
    });
    return answer && sameId(answer, answer.id, devolucaoId, 'GET /pix/{e2eid}/devolucao/{id}');
  }

  /** Registers (or replaces) where the PSP notifies Pix received on `chave`; it POSTs to `webhookUrl` + "/pix". */
  async putWebhook(chave: string, webhookUrl: string): Promise<void> {
    const url = valid(webhookUrlSchema, webhookUrl, 'webhookUrl');
    await this.caller.call({
      method: 'PUT',
      path: `/webhook/${key(chave)}`,
      body: { webhookUrl: url },
      schema: null,
      route: 'PUT /webhook/{chave}',
      codes: WEBHOOK,
    });
  }

  /** The webhook registered for `chave`, or null when there is none. */
  getWebhook(chave: string): Promise<Webhook | null> {
    return this.caller.call({
      method: 'GET',
      path: `/webhook/${key(chave)}`,
      schema: webhookSchema,
      route: 'GET /webhook/{chave}',
      codes: WEBHOOK,
      nullOnNotFound: 'WebhookNaoEncontrado',
    });
  }

  /** Closes the kept-alive connections (tests, shutdown). */
  close(): Promise<void> {
    return this.connection.close();
  }

  private async required<T>(spec: CallSpec<T> & { schema: z.ZodType<T> }): Promise<T> {
    const answer = await this.caller.call<T>(spec);
    if (answer === null) throw new Error('unreachable: null without nullOnNotFound');
    return answer;
  }
}
