/**
 * /sandbox/* control routes: the "payer" button (charges and boletos), callback resends, inspection and faults.
 * No faults, by design: they stand for the outside world, not the PSP API. Open in development
 * and tests; elsewhere app.ts puts SANDBOX_CONTROL_TOKEN in front (anyone reaching them can pay
 * any charge). The server also binds 127.0.0.1 by default.
 */
import express, { Router } from 'express';
import { accountRoutes } from './accountRoutes';
import { payBoleto, resendBoletoCallback } from './boletos';
import { payCharge, resendPaidCallback } from './charges';
import type { SandboxContext } from './context';
import { setStatementAmount, setTransferStatementAmount } from './statement';
import { decideDueInfractions, decideInfraction, maybeOpenInfraction, openInfraction } from './infractions';
import { registerKey } from './dict';
import { pixAutomaticoControls } from './pixAutomaticoControls';
import type { EfiApi } from './efi';
import { efiControlRoutes } from './efi/controlRoutes';
import {
  decideInfractionSchema,
  dictKeySchema,
  faultsSchema,
  openInfractionSchema,
  parseBody,
  payBodySchema,
  payBoletoBodySchema,
  statementAmountSchema,
} from './schemas';
import { NO_FAULTS } from './state';

export function controlRoutes(ctx: SandboxContext, efi: Pick<EfiApi, 'webhooks'>): Router {
  const router = Router();
  const { state } = ctx;
  router.use(express.json({ limit: '64kb' }));
  // Efí's sends, balance and webhooks (sandbox/efi/controlRoutes.ts).
  router.use('/efi', efiControlRoutes(ctx, efi));
  // The PSP's accounts: create one, read its balance and keys (sandbox/accountRoutes.ts).
  router.use('/accounts', accountRoutes(ctx));
  // Pix Automático's payer: approves, refuses, pays, rejects (sandbox/pixAutomaticoControls.ts).
  router.use('/pix-automatico', pixAutomaticoControls(ctx));

  // :id is the provider charge id or, for convenience, the gateway's reference.
  router.post('/charges/:id/pay', (req, res) => {
    const { payer, late, callback } = parseBody(payBodySchema, req.body);
    const charge = payCharge(ctx, req.params.id, payer ?? {}, late ?? false, callback ?? true);
    maybeOpenInfraction(ctx, charge.id, ctx.openInfractionRate, ctx.random);
    res.json(charge);
  });

  // Test control: the DICT opens a Pix infraction (MED) against a paid charge (:id as for pay, or its endToEndId).
  router.post('/charges/:id/infractions', (req, res) => {
    res.status(201).json(openInfraction(ctx, req.params.id, parseBody(openInfractionSchema, req.body ?? {})));
  });

  router.get('/infractions', (_req, res) => {
    decideDueInfractions(ctx);
    res.json({ infractions: [...state.infractions.values()] });
  });

  // Test control: the PSP decides a case (MED 2.0): UPHELD or DISMISSED a defended one, CANCELLED any open one.
  router.post('/infractions/:id/decision', (req, res) => {
    const { outcome } = parseBody(decideInfractionSchema, req.body ?? {});
    res.json(decideInfraction(ctx, req.params.id, outcome));
  });

  // Test control: the statement reports this amount for a paid charge (a provider-side disagreement).
  router.post('/charges/:id/statement-amount', (req, res) => {
    const { amountCents } = parseBody(statementAmountSchema, req.body);
    res.json({ statementAmountCents: setStatementAmount(ctx, req.params.id, amountCents) });
  });

  // Test control: the statement reports this amount for the transfer with our reference.
  router.post('/transfers/:reference/statement-amount', (req, res) => {
    const { amountCents } = parseBody(statementAmountSchema, req.body);
    res.json({ statementAmountCents: setTransferStatementAmount(ctx, req.params.reference, amountCents) });
  });

  router.post('/charges/:id/resend-callback', (req, res) => {
    res.status(202).json({ eventId: resendPaidCallback(ctx, req.params.id) });
  });

  // :id is the boleto id or the gateway's reference. via PIX pays the hybrid boleto's BR Code.
  router.post('/boletos/:id/pay', (req, res) => {
    res.json(payBoleto(ctx, req.params.id, parseBody(payBoletoBodySchema, req.body)));
  });

  router.post('/boletos/:id/resend-callback', (req, res) => {
    res.status(202).json({ eventId: resendBoletoCallback(ctx, req.params.id) });
  });

  router.get('/callbacks', (req, res) => {
    // boletoId is an alias: the log's chargeId holds whichever provider id the event is about.
    const { eventId } = req.query;
    const chargeId = req.query.chargeId ?? req.query.boletoId;
    const attempts = state.callbacks.filter(
      (a) =>
        (typeof chargeId !== 'string' || a.chargeId === chargeId) &&
        (typeof eventId !== 'string' || a.eventId === eventId),
    );
    res.json({ attempts });
  });

  // Test control: the Pix directory (DICT) learns who owns an e-mail, phone or random key.
  router.post('/dict/keys', (req, res) => {
    res.status(201).json(registerKey(state, parseBody(dictKeySchema, req.body)));
  });

  router.get('/transfers', (_req, res) => {
    res.json({
      transfers: [...state.transfers.values()],
      references: Object.fromEntries(state.transferStats),
    });
  });

  // POST replaces the whole fault config: omitted fields go back to 0.
  router.post('/faults', (req, res) => {
    state.faults = { ...NO_FAULTS, ...parseBody(faultsSchema, req.body) };
    ctx.logger.warn({ faults: state.faults }, 'faults set');
    res.json(state.faults);
  });

  router.get('/faults', (_req, res) => {
    res.json(state.faults);
  });

  router.delete('/faults', (_req, res) => {
    state.faults = { ...NO_FAULTS };
    res.json(state.faults);
  });

  return router;
}
