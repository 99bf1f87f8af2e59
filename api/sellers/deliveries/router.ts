/** Delivery history and resend, mounted under the sellers router. */
import { Router, type RequestHandler } from 'express';
import { parseOrThrow } from '../../validation/validate';
import { listDeliveriesQuery, uuidParam } from './schema';
import type { DeliveryService } from './service';

export function deliveriesRouter(service: DeliveryService): Router {
  const router = Router();
  const id = (raw: unknown, what: string) => parseOrThrow(uuidParam, raw, what);
  const forWebhook: RequestHandler = async (req, res) => {
    res.json(await service.listForWebhook(req.user!.merchantId, id(req.params.id, 'webhook id'), parseOrThrow(listDeliveriesQuery, req.query, 'query')));
  };
  const forEvent: RequestHandler = async (req, res) => {
    res.json(await service.listForEvent(req.user!.merchantId, id(req.params.eventId, 'event id'), parseOrThrow(listDeliveriesQuery, req.query, 'query')));
  };
  const read: RequestHandler = async (req, res) => {
    res.json(await service.get(req.user!.merchantId, id(req.params.deliveryId, 'delivery id')));
  };
  const resend: RequestHandler = async (req, res) => {
    res.status(201).json(await service.resend(req.user!.merchantId, id(req.params.deliveryId, 'delivery id')));
  };
  router.get('/webhooks/:id/deliveries', forWebhook);
  router.get('/events/:eventId/deliveries', forEvent);
  router.get('/webhook-deliveries/:deliveryId', read);
  router.post('/webhook-deliveries/:deliveryId/resend', resend);
  return router;
}
