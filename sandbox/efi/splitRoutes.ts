/**
 * Efí's Split Pix routes on the /v2/gn router, each on the token's account's configurations and
 * cobs only (another account's: not found): POST /split/config, PUT and GET /split/config/{id},
 * PUT /split/cob/{txid}/vinculo/{splitConfigId}, DELETE /split/cob/{txid}/vinculo and
 * GET /split/cob/{txid}. The model and its rules: splits.ts.
 */
import { Router } from 'express';
import { requestAccount } from '../accounts';
import type { SandboxContext } from '../context';
import { cobCompletaJson } from '../pixApi/cobView';
import { pathParam } from '../pixApi/pathParam';
import { EfiError } from './errors';
import {
  findAccountSplitConfig,
  linkedSplit,
  linkSplit,
  newSplitConfigId,
  putSplitConfig,
  readSplitConfig,
  splitConfigJson,
  unlinkSplit,
} from './splits';

export function splitRoutes(ctx: SandboxContext): Router {
  const router = Router();

  router.post('/split/config', (req, res) => {
    const account = requestAccount(res);
    const { config } = putSplitConfig(ctx, account, newSplitConfigId(), readSplitConfig(ctx, account, req.body));
    res.status(201).json(splitConfigJson(config));
  });

  router.put('/split/config/:id', (req, res) => {
    const account = requestAccount(res);
    const content = readSplitConfig(ctx, account, req.body);
    const { config, created } = putSplitConfig(ctx, account, pathParam(req, 'id'), content);
    res.status(created ? 201 : 200).json(splitConfigJson(config));
  });

  router.get('/split/config/:id', (req, res) => {
    const id = pathParam(req, 'id');
    const config = findAccountSplitConfig(ctx, requestAccount(res), id);
    if (!config)
      throw new EfiError(404, 'split_nao_encontrado', `Nenhuma configuração de split com o id ${id.slice(0, 40)}.`);
    const { revisao } = req.query;
    const current = config.revisions.length - 1;
    if (revisao === undefined) return res.json(splitConfigJson(config));
    const n = typeof revisao === 'string' && /^\d{1,9}$/.test(revisao) ? Number(revisao) : -1;
    if (n < 0 || n > current) throw new EfiError(400, 'valor_invalido', `revisao deve ser de 0 a ${current}.`);
    res.json(splitConfigJson(config, n));
  });

  router.put('/split/cob/:txid/vinculo/:splitConfigId', (req, res) => {
    linkSplit(ctx, requestAccount(res), pathParam(req, 'txid'), pathParam(req, 'splitConfigId'));
    res.status(204).end();
  });

  router.delete('/split/cob/:txid/vinculo', (req, res) => {
    unlinkSplit(ctx, requestAccount(res), pathParam(req, 'txid'));
    res.status(204).end();
  });

  router.get('/split/cob/:txid', (req, res) => {
    const { rec, config } = linkedSplit(ctx, requestAccount(res), pathParam(req, 'txid'));
    const content = config.revisions[rec.cob.split!.revisao];
    res.json({
      ...cobCompletaJson(ctx, rec),
      config: { id: config.id, status: 'ATIVA', descricao: content.descricao },
    });
  });

  return router;
}
