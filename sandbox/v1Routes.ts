/** The provider API proper (/v1), what HttpPixProvider talks to. Auth and faults sit in front. */
import express, { Router, type Request } from 'express';
import { cancelBoleto, findBoletoByReference, getBoletoRecord, issueBoleto, viewBoleto } from './boletos';
import { closeCharge, findChargeByReference, getChargeRecord, issueCharge, viewCharge } from './charges';
import type { SandboxContext } from './context';
import { lookUpKey } from './dict';
import { SandboxHttpError } from './errors';
import { requireIdempotencyKey } from './idempotency';
import { answerInfraction, getInfraction, listInfractions, providerView } from './infractions';
import {
  closeChargeSchema,
  infractionAnalysisSchema,
  infractionsQuerySchema,
  issueBoletoSchema,
  issueChargeSchema,
  parseBody,
  paymentReturnSchema,
  statementQuerySchema,
  transferSchema,
} from './schemas';
import { statement } from './statement';
import { createPaymentReturn, createTransfer, findTransferByReference, getTransfer } from './transfers';

function referenceQuery(req: Request): string {
  const reference = req.query.reference;
  if (typeof reference !== 'string' || reference === '') {
    throw new SandboxHttpError(400, 'VALIDATION_ERROR', 'query parameter "reference" is required');
  }
  return reference;
}

export function v1Routes(ctx: SandboxContext): Router {
  const router = Router();
  router.use(express.json({ limit: '64kb' }));

  router.post('/charges', async (req, res) => {
    const key = requireIdempotencyKey(req);
    const input = parseBody(issueChargeSchema, req.body);
    const { charge, created } = await issueCharge(ctx, key, input);
    res.status(created ? 201 : 200).json(charge);
  });

  router.get('/charges', (req, res) => {
    const rec = findChargeByReference(ctx, referenceQuery(req));
    if (!rec) throw new SandboxHttpError(404, 'CHARGE_NOT_FOUND', 'no charge with this reference');
    res.json(viewCharge(rec, ctx.now()));
  });

  router.get('/charges/:id', (req, res) => {
    res.json(viewCharge(getChargeRecord(ctx, req.params.id), ctx.now()));
  });

  router.post('/charges/:id/close', (req, res) => {
    const { reason } = parseBody(closeChargeSchema, req.body);
    res.json(closeCharge(ctx, req.params.id, reason));
  });

  // The account statement: every charge paid, return and transfer in [from, to).
  router.get('/statements', (req, res) => {
    const { from, to } = parseBody(statementQuerySchema, req.query);
    res.json(statement(ctx, new Date(from), new Date(to)));
  });

  // Pix infractions (MED) opened at or after `since` (all when absent), oldest first.
  router.get('/infractions', (req, res) => {
    const { since } = parseBody(infractionsQuerySchema, req.query);
    res.json({ infractions: listInfractions(ctx, since ? new Date(since) : null).map(providerView) });
  });

  router.get('/infractions/:id', (req, res) => {
    res.json(providerView(getInfraction(ctx, req.params.id)));
  });

  // The receiving PSP's analysis: idempotent (the same answer again is a replay).
  router.post('/infractions/:id/analysis', (req, res) => {
    res.json(providerView(answerInfraction(ctx, req.params.id, parseBody(infractionAnalysisSchema, req.body))));
  });

  router.post('/boletos', async (req, res) => {
    const key = requireIdempotencyKey(req);
    const input = parseBody(issueBoletoSchema, req.body);
    const { boleto, created } = await issueBoleto(ctx, key, input);
    res.status(created ? 201 : 200).json(boleto);
  });

  router.get('/boletos', (req, res) => {
    const rec = findBoletoByReference(ctx, referenceQuery(req));
    if (!rec) throw new SandboxHttpError(404, 'BOLETO_NOT_FOUND', 'no boleto with this reference');
    res.json(viewBoleto(rec));
  });

  router.get('/boletos/:id', (req, res) => {
    res.json(viewBoleto(getBoletoRecord(ctx, req.params.id)));
  });

  router.post('/boletos/:id/cancel', (req, res) => {
    res.json(cancelBoleto(ctx, req.params.id));
  });

  // The Pix directory (DICT): who owns a key, before money is sent to it.
  router.get('/dict/keys/:key', (req, res) => {
    res.json(lookUpKey(ctx.state, req.params.key));
  });

  router.post('/payment-returns', (req, res) => {
    const key = requireIdempotencyKey(req);
    const input = parseBody(paymentReturnSchema, req.body);
    const { transfer, created } = createPaymentReturn(ctx, key, input);
    res.status(created ? 201 : 200).json(transfer);
  });

  router.post('/transfers', (req, res) => {
    const key = requireIdempotencyKey(req);
    const input = parseBody(transferSchema, req.body);
    const { transfer, created } = createTransfer(ctx, key, input);
    res.status(created ? 201 : 200).json(transfer);
  });

  router.get('/transfers', (req, res) => {
    const transfer = findTransferByReference(ctx, referenceQuery(req));
    if (!transfer) throw new SandboxHttpError(404, 'TRANSFER_NOT_FOUND', 'no transfer with this reference');
    res.json(transfer);
  });

  router.get('/transfers/:id', (req, res) => {
    res.json(getTransfer(ctx, req.params.id));
  });

  return router;
}
