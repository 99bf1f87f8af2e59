/**
 * /sandbox/efi/* test controls (behind the control token, no faults: sandbox/controlRoutes.ts), on the
 * default account (the balance) or on every account (the sends, the webhook pause):
 *  - POST /saldo {cents}: the Efí balance is `cents` now (later flows move it from there);
 *  - POST /webhooks {paused}: while paused, the send webhooks are dropped ("a webhook that never comes");
 *  - POST /enviados/:idEnvio/devolucao {amountCents}: the recipient returns part of a REALIZADO send
 *    (never more than was sent in total): the balance goes up and the webhook is POSTed;
 *  - GET /enviados: every send as Efí shows it, with the sandbox's own fields.
 */
import { Router } from 'express';
import { z } from 'zod';
import type { SandboxContext } from '../context';
import { parseBody } from '../schemas';
import { balanceCents, setBalanceCents } from './balance';
import { signedValor } from './balanceRoutes';
import { returnSend } from './sends';
import { pixEnviadoJson } from './sendView';
import type { EfiSendWebhooks } from './webhooks';

const saldoSchema = z.object({ cents: z.number().int().min(-1e15).max(1e15) }).strict();
const pausedSchema = z.object({ paused: z.boolean() }).strict();
const devolucaoSchema = z.object({ amountCents: z.number().int().min(1).max(999_999_999_999) }).strict();

export function efiControlRoutes(ctx: SandboxContext, efi: { webhooks: EfiSendWebhooks }): Router {
  const router = Router();

  router.post('/saldo', (req, res) => {
    const { cents } = parseBody(saldoSchema, req.body);
    const now = setBalanceCents(ctx, cents);
    res.json({ cents: now, saldo: signedValor(now) });
  });

  router.post('/webhooks', (req, res) => {
    ctx.state.efiWebhooksPaused = parseBody(pausedSchema, req.body).paused;
    ctx.logger.warn({ paused: ctx.state.efiWebhooksPaused }, 'efi send webhooks');
    res.json({ paused: ctx.state.efiWebhooksPaused });
  });

  router.post('/enviados/:idEnvio/devolucao', (req, res) => {
    const { amountCents } = parseBody(devolucaoSchema, req.body);
    const { send, devolucao } = returnSend(ctx, req.params.idEnvio, amountCents);
    efi.webhooks.notify(send.idEnvio);
    res.status(201).json({ devolucao, enviado: pixEnviadoJson(ctx, send) });
  });

  router.get('/enviados', (_req, res) => {
    res.json({
      saldoCents: balanceCents(ctx),
      webhooksPaused: ctx.state.efiWebhooksPaused,
      enviados: [...ctx.state.efiSends.values()].map((send) => ({ ...pixEnviadoJson(ctx, send), sandbox: send })),
    });
  });

  return router;
}
