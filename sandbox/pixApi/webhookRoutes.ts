/** /api/v2/webhook: register, read, remove and list where Pix received are notified, for the token's account's keys. */
import { Router } from 'express';
import { requestAccount } from '../accounts';
import type { SandboxContext } from '../context';
import { requireScope } from './oauth';
import { pathParam } from './pathParam';
import { paginate, readPage } from './pagination';
import { QueryReader } from './queryReader';
import { parseBody, webhookSchema } from './schemas';
import { getWebhook, registerWebhook, removeWebhook, webhookJson } from './webhooks';

export function webhookRoutes(ctx: SandboxContext): Router {
  const router = Router();

  router.put('/webhook/:chave', requireScope('webhook.write'), (req, res) => {
    const { webhookUrl } = parseBody(webhookSchema, req.body, 'WebhookOperacaoInvalida', 'webhook');
    registerWebhook(ctx, requestAccount(res), pathParam(req, 'chave'), webhookUrl);
    // The document's 200 has no body.
    res.status(200).send();
  });

  router.get('/webhook/:chave', requireScope('webhook.read'), (req, res) => {
    res.json(webhookJson(ctx, getWebhook(ctx, requestAccount(res), pathParam(req, 'chave'))));
  });

  router.delete('/webhook/:chave', requireScope('webhook.write'), (req, res) => {
    removeWebhook(ctx, requestAccount(res), pathParam(req, 'chave'));
    res.status(204).send();
  });

  router.get('/webhook', requireScope('webhook.read'), (req, res) => {
    const query = new QueryReader(req.query, 'WebhookConsultaInvalida');
    const inicio = query.instant('inicio', false);
    const fim = query.instant('fim', false);
    const page = readPage(query);
    query.check(!inicio || !fim || inicio.at <= fim.at, 'fim', 'anterior a inicio');
    query.done();
    const account = requestAccount(res);
    const found = [...ctx.state.pixWebhooks.values()]
      .filter((w) => ctx.accounts.owns(account, w.chave))
      .filter((w) => (!inicio || Date.parse(w.criacao) >= inicio.at) && (!fim || Date.parse(w.criacao) <= fim.at))
      .sort((a, b) => a.criacao.localeCompare(b.criacao) || a.chave.localeCompare(b.chave));
    const { page: webhooks, paginacao } = paginate(found, page);
    res.json({
      parametros: { ...(inicio ? { inicio: inicio.text } : {}), ...(fim ? { fim: fim.text } : {}), paginacao },
      webhooks: webhooks.map((w) => webhookJson(ctx, w)),
    });
  });

  return router;
}
