/** /api/v2/cob: create (PUT with the client's txid, POST with the PSP's), revise or remove (PATCH), read and list. */
import { Router, type Request } from 'express';
import { generateTxid } from '../../core/pix/brcode';
import type { SandboxContext } from '../context';
import { requestAccount } from '../accounts';
import { findAccountCob, listCobs, patchCob, putCob, cobStatus, type CobCharge } from './cobs';
import { cobCompletaJson, cobJson } from './cobView';
import { requireScope } from './oauth';
import { pathParam } from './pathParam';
import { PixProblem } from './problem';
import { inWindowForDebtor, listPage, readListFilters } from './listFilters';
import { QueryReader } from './queryReader';
import { cobCreateSchema, cobReviseSchema, INT32_MAX, parseBody, TXID_RE } from './schemas';

export interface CobRouteOptions {
  /** host[:port] written in payload locations; the Host the client called when unset. */
  locationHost?: string;
}

/** Where the payer's PSP will fetch the payload: the configured host, else the Host header (a sane one). */
function locationHost(req: Request, configured: string | undefined): string {
  if (configured) return configured;
  const host = req.get('host') ?? '';
  return /^[A-Za-z0-9.:[\]-]{1,50}$/.test(host) ? host : 'localhost';
}

export function cobRoutes(ctx: SandboxContext, options: CobRouteOptions): Router {
  const router = Router();

  router.put('/cob/:txid', requireScope('cob.write'), (req, res) => {
    const txid = pathParam(req, 'txid');
    if (!TXID_RE.test(txid)) {
      throw new PixProblem('CobOperacaoInvalida', 'O txid não respeita o schema.', [
        { propriedade: 'txid', razao: 'O txid tem de 26 a 35 caracteres alfanuméricos.', valor: txid.slice(0, 40) },
      ]);
    }
    const body = parseBody(cobCreateSchema, req.body, 'CobOperacaoInvalida', 'cob');
    const { rec } = putCob(ctx, { account: requestAccount(res) }, txid, body, locationHost(req, options.locationHost));
    res.status(201).json(cobJson(rec));
  });

  router.post('/cob', requireScope('cob.write'), (req, res) => {
    const body = parseBody(cobCreateSchema, req.body, 'CobOperacaoInvalida', 'cob');
    const rules = { account: requestAccount(res) };
    const { rec } = putCob(ctx, rules, generateTxid(32), body, locationHost(req, options.locationHost));
    res.status(201).json(cobJson(rec));
  });

  router.patch('/cob/:txid', requireScope('cob.write'), (req, res) => {
    const txid = pathParam(req, 'txid');
    const account = requestAccount(res);
    if (!findAccountCob(ctx, account, txid))
      throw new PixProblem('CobNaoEncontrado', `Nenhuma cobrança com o txid ${txid.slice(0, 40)}.`);
    const body = parseBody(cobReviseSchema, req.body, 'CobOperacaoInvalida', 'cob');
    res.json(cobJson(patchCob(ctx, { account }, txid, body)));
  });

  router.get('/cob/:txid', requireScope('cob.read'), (req, res) => {
    const txid = pathParam(req, 'txid');
    const rec = findAccountCob(ctx, requestAccount(res), txid);
    if (!rec) throw new PixProblem('CobNaoEncontrado', `Nenhuma cobrança com o txid ${txid.slice(0, 40)}.`);
    const query = new QueryReader(req.query, 'CobConsultaInvalida');
    const current = rec.cob.revisions.length - 1;
    const revisao = query.integer('revisao', 0, INT32_MAX, current);
    query.check(revisao <= current, 'revisao', `a cobrança não tem a revisão ${revisao} (a atual é ${current})`);
    query.done();
    res.json(cobCompletaJson(ctx, rec, revisao));
  });

  router.get('/cob', requireScope('cob.read'), (req, res) => {
    const filters = readListFilters(
      new QueryReader(req.query, 'CobConsultaInvalida'),
      '14 caracteres, dígitos ou letras maiúsculas',
    );
    const matches = (rec: CobCharge) =>
      inWindowForDebtor(
        filters,
        Date.parse(rec.charge.createdAt),
        rec.cob.revisions[rec.cob.revisions.length - 1].devedor,
      ) &&
      // Every cob of this PSP has a location: it is made with the cob.
      filters.locationPresente !== false &&
      (filters.status === undefined || cobStatus(rec) === filters.status);
    const found = listCobs(ctx, requestAccount(res))
      .filter(matches)
      .sort(
        (a, b) => a.charge.createdAt.localeCompare(b.charge.createdAt) || a.charge.txid.localeCompare(b.charge.txid),
      );
    const { items: cobs, parametros } = listPage(filters, found);
    res.json({ parametros, cobs: cobs.map((rec) => cobCompletaJson(ctx, rec)) });
  });

  return router;
}
