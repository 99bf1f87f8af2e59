/** /charges (application API, bearer): POST / and GET / , GET /{id}, POST /{id}/cancel (the refund route is api/refunds/router.ts), GET /{id}/boleto/pdf, GET /{id}/receipt. */
import { Router, type RequestHandler } from 'express';
import { signedIn } from '../identity/auth/bearer';
import { ANY_ROLE, requireRole } from '../identity/auth/roles';
import { sendReceiptPdf } from '../receipts/downloads/router';
import type { ReceiptService } from '../receipts/downloads/service';
import { readIdempotencyKey, requireIdempotencyKey } from '../idempotency/header';
import type { IdempotencyService } from '../idempotency/idempotencyService';
import { respondIdempotently } from '../idempotency/respond';
import { parseOrThrow } from '../validation/validate';
import { errors } from '../errors/apiError';
import { cancelChargeBody, chargeIdParam, createChargeBody, listChargesQuery, type CreateChargeBody } from './schema';
import { CHARGE_WRITERS, type AppChargeService } from './service';

export function chargesRouter(deps: {
  service: AppChargeService;
  receipts: ReceiptService;
  idempotency: IdempotencyService;
  requireUser: RequestHandler;
}): Router {
  const h = chargeHandlers(deps.service, deps.idempotency, deps.receipts);
  const router = Router();
  router.use(deps.requireUser);
  // Creating needs a key, checked before anything else of the request.
  router.post('/', requireIdempotencyKey, h.create);
  router.get('/', h.list);
  router.get('/:id', h.read);
  router.post('/:id/cancel', h.cancel);
  router.get('/:id/boleto/pdf', h.boletoPdf);
  router.get('/:id/receipt', h.receipt);
  return router;
}

function chargeHandlers(
  service: AppChargeService,
  idempotency: IdempotencyService,
  receipts: ReceiptService,
): Record<'create' | 'list' | 'read' | 'cancel' | 'boletoPdf' | 'receipt', RequestHandler> {
  return {
    create: async (req, res) => {
      const { user } = signedIn(req);
      const body = parseOrThrow(createChargeBody, req.body);
      checkMethodFields(body);
      // Present: requireIdempotencyKey (above) refused the request otherwise.
      const key = readIdempotencyKey(req)!;
      // The role first: a key is never claimed for a merchant the caller may not charge for.
      await requireRole(user.id, body.merchantId, CHARGE_WRITERS);
      await respondIdempotently(
        req,
        res,
        idempotency,
        { scope: 'POST /charges', merchantId: body.merchantId, request: body },
        async (chargeId, resuming) => ({
          status: 201,
          body: await service.create(body, chargeId, resuming, key),
        }),
      );
    },
    list: async (req, res) => {
      const query = parseOrThrow(listChargesQuery, req.query, 'query');
      res.json(await service.list(signedIn(req).user.id, query));
    },
    read: async (req, res) => {
      const id = parseOrThrow(chargeIdParam, req.params.id, 'charge id');
      res.json(await service.read(signedIn(req).user.id, id));
    },
    cancel: async (req, res) => {
      const id = parseOrThrow(chargeIdParam, req.params.id, 'charge id');
      const body = parseOrThrow(cancelChargeBody, req.body ?? {});
      res.json(await service.cancel(signedIn(req).user.id, id, body.reason));
    },
    boletoPdf: async (req, res) => {
      const id = parseOrThrow(chargeIdParam, req.params.id, 'charge id');
      const pdf = await service.boletoPdf(signedIn(req).user.id, id);
      res.set({
        'content-type': 'application/pdf',
        'content-disposition': `inline; filename="boleto-${id}.pdf"`,
        'cache-control': 'private, no-store',
      });
      res.send(pdf);
    },
    receipt: async (req, res) => {
      const id = parseOrThrow(chargeIdParam, req.params.id, 'charge id');
      // Any member of the charge's merchant; anyone else: 404, as for reading the charge.
      const charge = await service.ownedCharge(signedIn(req).user.id, id, ANY_ROLE);
      sendReceiptPdf(res, `comprovante-transacao-${id}.pdf`, await receipts.charge(charge));
    },
  };
}

/** Fields that depend on the method: a boleto is registered in the payer's name; terms are boleto-only. */
function checkMethodFields(body: CreateChargeBody): void {
  const fields: { field: string; message: string }[] = [];
  if (body.method === 'BOLETO' && !body.payer)
    fields.push({ field: 'payer', message: 'required for method BOLETO (name and taxId of who pays)' });
  if (body.method !== 'BOLETO' && body.boleto) fields.push({ field: 'boleto', message: 'only for method BOLETO' });
  if (fields.length) throw errors.validation('request body is invalid', { fields });
}
