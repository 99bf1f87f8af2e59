/** /api/v2/pix: the Pix the token's account received (one, or the list with filters and paginacao) and their devoluções. */
import { Router } from 'express';
import { requestAccount } from '../accounts';
import type { SandboxContext } from '../context';
import { listReceivedPixPayments } from '../receivedPayments';
import { findDevolucao, findPaymentOr404, requestDevolucao } from './devolucoes';
import type { DevolucaoSettlements } from './notifications';
import { requireScope } from './oauth';
import { pathParam } from './pathParam';
import { paginate, readPage } from './pagination';
import { devolucaoJson, devolucoesOf, pixJson } from './pixView';
import { PixProblem } from './problem';
import { QueryReader } from './queryReader';
import { CNPJ_RE, CPF_RE, DEVOLUCAO_ID_RE, devolucaoSchema, E2E_RE, parseBody, TXID_RE } from './schemas';

export interface PixRouteOptions {
  /** How long a devolução reads EM_PROCESSAMENTO before its outcome. */
  devolucaoSettleMs: number;
  settlements: DevolucaoSettlements;
}

export function pixRoutes(ctx: SandboxContext, options: PixRouteOptions): Router {
  const router = Router();

  // A malformed e2eid cannot name a Pix: 404, like an unknown one.
  const e2eOr404 = (e2eid: string): string => {
    if (!E2E_RE.test(e2eid))
      throw new PixProblem(
        'PixNaoEncontrado',
        'Nenhum Pix recebido com este endToEndId (32 caracteres alfanuméricos).',
      );
    return e2eid;
  };

  router.get('/pix/:e2eid', requireScope('pix.read'), (req, res) => {
    res.json(pixJson(ctx, findPaymentOr404(ctx, requestAccount(res), e2eOr404(pathParam(req, 'e2eid')))));
  });

  router.put('/pix/:e2eid/devolucao/:id', requireScope('pix.write'), (req, res) => {
    const e2eid = e2eOr404(pathParam(req, 'e2eid'));
    const id = pathParam(req, 'id');
    if (!DEVOLUCAO_ID_RE.test(id)) {
      throw new PixProblem('PixDevolucaoInvalida', 'O id da devolução não respeita o schema.', [
        { propriedade: 'id', razao: 'O id tem de 1 a 35 caracteres alfanuméricos.', valor: id.slice(0, 40) },
      ]);
    }
    const account = requestAccount(res);
    findPaymentOr404(ctx, account, e2eid);
    const body = parseBody(devolucaoSchema, req.body, 'PixDevolucaoInvalida', 'devolucao');
    const { devolucao, created } = requestDevolucao(ctx, account, options.devolucaoSettleMs, e2eid, id, body);
    if (created) options.settlements.schedule(devolucao);
    res.status(201).json(devolucaoJson(ctx, devolucao));
  });

  router.get('/pix/:e2eid/devolucao/:id', requireScope('pix.read'), (req, res) => {
    const e2eid = e2eOr404(pathParam(req, 'e2eid'));
    const id = pathParam(req, 'id');
    if (!DEVOLUCAO_ID_RE.test(id)) throw new PixProblem('PixDevolucaoNaoEncontrada', 'Nenhuma devolução com este id.');
    res.json(devolucaoJson(ctx, findDevolucao(ctx, requestAccount(res), e2eid, id)));
  });

  router.get('/pix', requireScope('pix.read'), (req, res) => {
    const query = new QueryReader(req.query, 'PixConsultaInvalida');
    const inicio = query.instant('inicio', true);
    const fim = query.instant('fim', true);
    // The document types this filter as TxId (26 to 35 alphanumerics), whatever its second pattern says.
    const txid = query.string('txid', TXID_RE, 'de 26 a 35 caracteres alfanuméricos');
    const txIdPresente = query.boolean('txIdPresente');
    const devolucaoPresente = query.boolean('devolucaoPresente');
    const cpf = query.string('cpf', CPF_RE, '11 dígitos');
    const cnpj = query.string('cnpj', CNPJ_RE, '14 caracteres, dígitos ou letras maiúsculas');
    const page = readPage(query);
    query.check(!inicio || !fim || inicio.at <= fim.at, 'fim', 'anterior a inicio');
    query.check(cpf === undefined || cnpj === undefined, 'cpf', 'cpf e cnpj não podem ser usados juntos');
    query.done();
    const from = inicio?.at as number;
    const to = fim?.at as number;
    const account = requestAccount(res);
    const found = listReceivedPixPayments(ctx)
      .filter((p) => {
        if (ctx.accounts.ownerOf(p.pixKey).id !== account.id) return false;
        const at = Date.parse(p.paidAt);
        const { document, documentType } = p.payer;
        return (
          at >= from &&
          at <= to &&
          (txid === undefined || p.txid === txid) &&
          // Every Pix this sandbox receives pays a code with a txid.
          txIdPresente !== false &&
          (devolucaoPresente === undefined || devolucaoPresente === devolucoesOf(ctx, p.endToEndId).length > 0) &&
          (cpf === undefined || (documentType === 'CPF' && document === cpf)) &&
          (cnpj === undefined || (documentType === 'CNPJ' && document === cnpj))
        );
      })
      .sort((a, b) => a.paidAt.localeCompare(b.paidAt) || a.endToEndId.localeCompare(b.endToEndId));
    const { page: pix, paginacao } = paginate(found, page);
    res.json({
      parametros: {
        inicio: inicio?.text,
        fim: fim?.text,
        ...(txid !== undefined ? { txid } : {}),
        ...(txIdPresente !== undefined ? { txIdPresente } : {}),
        ...(devolucaoPresente !== undefined ? { devolucaoPresente } : {}),
        ...(cpf !== undefined ? { cpf } : {}),
        ...(cnpj !== undefined ? { cnpj } : {}),
        paginacao,
      },
      // The list is the account's statement of Pix received: a test control can make it disagree (statement.ts).
      pix: pix.map((p) => pixJson(ctx, p, { statement: true })),
    });
  });

  return router;
}
