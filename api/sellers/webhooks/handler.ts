import type { RequestHandler } from 'express';
import { readIdempotencyKey } from '../../idempotency/header';
import { parseOrThrow } from '../../validation/validate';
import { createWebhookBody, listWebhooksQuery, updateWebhookBody, webhookIdParam } from './schema';
import type { WebhookService } from './service';

export function webhookHandlers(service: WebhookService) {
  const idOf = (raw: unknown) => parseOrThrow(webhookIdParam, raw, 'webhook id');
  const create: RequestHandler = async (req, res) => {
    const body = parseOrThrow(createWebhookBody, req.body);
    const result = await service.create(req.user!.merchantId, body, readIdempotencyKey(req));
    if (result.replay) res.setHeader('idempotent-replayed', 'true');
    res.status(result.status).json(result.body);
  };
  const list: RequestHandler = async (req, res) => {
    res.json(await service.list(req.user!.merchantId, parseOrThrow(listWebhooksQuery, req.query, 'query')));
  };
  const read: RequestHandler = async (req, res) => {
    res.json(await service.get(req.user!.merchantId, idOf(req.params.id)));
  };
  const update: RequestHandler = async (req, res) => {
    const id = idOf(req.params.id);
    res.json(await service.update(req.user!.merchantId, id, parseOrThrow(updateWebhookBody, req.body)));
  };
  const rotate: RequestHandler = async (req, res) => {
    res.json(await service.rotateSecret(req.user!.merchantId, idOf(req.params.id)));
  };
  const remove: RequestHandler = async (req, res) => {
    res.json(await service.disable(req.user!.merchantId, idOf(req.params.id)));
  };
  return { create, list, read, update, rotate, remove };
}
