/** /sellers/webhooks (seller family, client credentials; api/sellers/router.ts): a merchant's webhook endpoints and their secrets. */
import { Router, type RequestHandler } from 'express';
import { parseOrThrow } from '../../validation/validate';
import { createWebhookBody, listWebhooksQuery, updateWebhookBody, webhookIdParam } from './schema';
import { redactSecret, type WebhookService } from './service';
import type { IdempotencyService } from '../../idempotency/idempotencyService';
import { respondIdempotently } from '../../idempotency/respond';

export function webhooksRouter(service: WebhookService, idempotency: IdempotencyService): Router {
  const h = webhookHandlers(service, idempotency);
  const router = Router();
  router.post('/', h.create);
  router.get('/', h.list);
  router.get('/:id', h.read);
  router.patch('/:id', h.update);
  router.post('/:id/rotate-secret', h.rotate);
  router.delete('/:id', h.remove);
  return router;
}

function webhookHandlers(service: WebhookService, idempotency: IdempotencyService) {
  const idOf = (raw: unknown) => parseOrThrow(webhookIdParam, raw, 'webhook id');
  const create: RequestHandler = async (req, res) => {
    const body = parseOrThrow(createWebhookBody, req.body);
    await respondIdempotently(
      req,
      res,
      idempotency,
      { scope: 'POST /sellers/webhooks', request: body, storedBody: redactSecret },
      async (id) => ({
        status: 201,
        body: await service.create(req.user!.merchantId, body, id),
      }),
    );
  };
  const list: RequestHandler = async (req, res) => {
    res.json(await service.list(req.user!.merchantId, parseOrThrow(listWebhooksQuery, req.query, 'query')));
  };
  const read: RequestHandler = async (req, res) => {
    res.json(await service.get(req.user!.merchantId, idOf(req.params.id)));
  };
  const update: RequestHandler = async (req, res) => {
    const id = idOf(req.params.id);
    const body = parseOrThrow(updateWebhookBody, req.body);
    await respondIdempotently(
      req,
      res,
      idempotency,
      { scope: `PATCH /sellers/webhooks/${id}`, request: body },
      async () => ({
        status: 200,
        body: await service.update(req.user!.merchantId, id, body),
      }),
    );
  };
  const rotate: RequestHandler = async (req, res) => {
    const id = idOf(req.params.id);
    // A replay must not show (or make) another secret: it answers with the secret redacted.
    await respondIdempotently(
      req,
      res,
      idempotency,
      { scope: `POST /sellers/webhooks/${id}/rotate-secret`, request: {}, storedBody: redactSecret },
      async (rotationId) => ({ status: 200, body: await service.rotateSecret(req.user!.merchantId, id, rotationId) }),
    );
  };
  const remove: RequestHandler = async (req, res) => {
    const id = idOf(req.params.id);
    await respondIdempotently(
      req,
      res,
      idempotency,
      { scope: `DELETE /sellers/webhooks/${id}`, request: {} },
      async () => ({
        status: 200,
        body: await service.disable(req.user!.merchantId, id),
      }),
    );
  };
  return { create, list, read, update, rotate, remove };
}
