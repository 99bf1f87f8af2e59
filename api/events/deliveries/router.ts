/** Delivery history and resend, mounted under the sellers router. */
import { Router, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { parseOrThrow } from '../../validation/validate';
import { listDeliveriesQuery, uuidParam } from './schema';
import type { DeliveryService } from './service';
import type { IdempotencyService } from '../../idempotency/idempotencyService';
import { respondIdempotently } from '../../idempotency/respond';

export function deliveriesRouter(service: DeliveryService, idempotency: IdempotencyService): Router {
  const router = Router();
  const id = (raw: unknown, what: string) => parseOrThrow(uuidParam, raw, what);
  const forWebhook: RequestHandler = async (req, res) => {
    res.json(
      await service.listForWebhook(
        req.user!.merchantId,
        id(req.params.id, 'webhook id'),
        parseOrThrow(listDeliveriesQuery, req.query, 'query'),
      ),
    );
  };
  const forEvent: RequestHandler = async (req, res) => {
    res.json(
      await service.listForEvent(
        req.user!.merchantId,
        id(req.params.eventId, 'event id'),
        parseOrThrow(listDeliveriesQuery, req.query, 'query'),
      ),
    );
  };
  const read: RequestHandler = async (req, res) => {
    res.json(await service.get(req.user!.merchantId, id(req.params.deliveryId, 'delivery id')));
  };
  const resend: RequestHandler = async (req, res) => {
    const deliveryId = id(req.params.deliveryId, 'delivery id');
    // With a key, a retried resend makes one new delivery, not two.
    await respondIdempotently(
      req,
      res,
      idempotency,
      { scope: `POST /sellers/webhook-deliveries/${deliveryId}/resend`, request: {} },
      (resendId) => service.resend(req.user!.merchantId, deliveryId, resendId, res.locals.log as Logger | undefined),
    );
  };
  router.get('/webhooks/:id/deliveries', forWebhook);
  router.get('/events/:eventId/deliveries', forEvent);
  router.get('/webhook-deliveries/:deliveryId', read);
  router.post('/webhook-deliveries/:deliveryId/resend', resend);
  return router;
}
