/**
 * /sandbox/pix-automatico/*: the payer's side of Pix Automático (its bank's app and PSP), as test
 * controls behind the control token like the others. What the rules forbid answers 409
 * INVALID_STATE with the reason; an unknown idRec or txid 404. Each change is notified through
 * webhookrec / webhookcobr as the receiver's PSP would (pixApi/recs.ts).
 */
import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { payCharge } from './charges';
import type { SandboxContext } from './context';
import { SandboxHttpError } from './errors';
import { PixProblem } from './pixApi/problem';
import {
  answerSolicRec,
  approveRec,
  endRec,
  expireRec,
  expireCobR,
  liveSolicRec,
  payCobR,
  rejectCobR,
  REJECTION_CODES,
  type CobRRecord,
  type RecRecord,
} from './pixApi/recs';
import { parseBody } from './schemas';

const approveSchema = z.strictObject({ jornada: z.enum(['JORNADA_1', 'JORNADA_2']) });
const rejectSchema = z.strictObject({ codigo: z.enum(REJECTION_CODES) });

export function pixAutomaticoControls(ctx: SandboxContext): Router {
  const router = Router();
  const store = ctx.state.pixAutomatico;

  const rec = (idRec: string): RecRecord => {
    const found = store.recs.get(idRec);
    if (!found) throw new SandboxHttpError(404, 'REC_NOT_FOUND', `rec ${idRec} not found`);
    return found;
  };
  const cobr = (txid: string): CobRRecord => {
    const found = store.cobrs.get(txid);
    if (!found) throw new SandboxHttpError(404, 'COBR_NOT_FOUND', `cobr ${txid} not found`);
    return found;
  };
  /** The rules' refusals (PixProblem from recs.ts) as this API's 409. */
  const guarded =
    (handler: RequestHandler): RequestHandler =>
    (req, res, next) => {
      try {
        handler(req, res, next);
      } catch (err) {
        if (err instanceof PixProblem)
          return next(
            new SandboxHttpError(409, 'INVALID_STATE', [err.detail, ...err.violacoes.map((v) => v.razao)].join(' ')),
          );
        next(err);
      }
    };

  // Journey 1: the payer accepts the request (solicrec ACEITA); journey 2: authorises by the QR.
  router.post(
    '/recs/:idRec/approve',
    guarded((req, res) => {
      const { jornada } = parseBody(approveSchema, req.body);
      const r = rec(req.params.idRec as string);
      if (jornada === 'JORNADA_1') {
        const solic = liveSolicRec(ctx, r.idRec);
        if (!solic) throw new SandboxHttpError(409, 'INVALID_STATE', 'the rec has no live solicrec');
        answerSolicRec(ctx, solic, true);
      } else {
        if (r.locId === null) throw new SandboxHttpError(409, 'INVALID_STATE', 'the rec has no loc: no QR to read');
        approveRec(ctx, r, 'JORNADA_2');
      }
      res.json({ idRec: r.idRec, status: r.status });
    }),
  );

  // The payer refuses: journey 1's request REJEITADA, or the QR's authorisation declined; the rec REJEITADA.
  router.post(
    '/recs/:idRec/refuse',
    guarded((req, res) => {
      const r = rec(req.params.idRec as string);
      const solic = liveSolicRec(ctx, r.idRec);
      if (solic) answerSolicRec(ctx, solic, false);
      else if (r.status !== 'CRIADA') throw new SandboxHttpError(409, 'INVALID_STATE', `the rec is ${r.status}`);
      else
        endRec(ctx, r, 'REJEITADA', {
          rejeicao: { codigo: 'AP13', descricao: 'O usuário pagador recusou a recorrência.' },
        });
      res.json({ idRec: r.idRec, status: r.status });
    }),
  );

  // Journey 3: the payer pays the composite QR: the cob of ativacao.dadosJornada.txid is paid and the rec approved.
  router.post(
    '/recs/:idRec/pay-composite',
    guarded((req, res) => {
      const r = rec(req.params.idRec as string);
      const txid = r.ativacao.dadosJornada?.txid;
      if (!txid) throw new SandboxHttpError(409, 'INVALID_STATE', 'the rec names no cob (ativacao.dadosJornada.txid)');
      if (r.status !== 'CRIADA') throw new SandboxHttpError(409, 'INVALID_STATE', `the rec is ${r.status}`);
      const charge = payCharge(ctx, txid, {});
      approveRec(ctx, r, 'JORNADA_3');
      res.json({ idRec: r.idRec, status: r.status, charge });
    }),
  );

  // The payer cancels the recurrence in their bank's app.
  router.post(
    '/recs/:idRec/cancel',
    guarded((req, res) => {
      const r = rec(req.params.idRec as string);
      if (r.status !== 'APROVADA' && r.status !== 'CRIADA')
        throw new SandboxHttpError(409, 'INVALID_STATE', `the rec is ${r.status}`);
      endRec(ctx, r, 'CANCELADA', {
        cancelamento: { solicitante: 'USUARIO_PAGADOR', codigo: 'SLDB', descricao: 'Cancelada pelo usuário pagador.' },
      });
      res.json({ idRec: r.idRec, status: r.status });
    }),
  );

  // The authorisation is never given in time: a live solicrec and the rec EXPIRADA.
  router.post(
    '/recs/:idRec/expire',
    guarded((req, res) => {
      const r = rec(req.params.idRec as string);
      if (r.status !== 'CRIADA') throw new SandboxHttpError(409, 'INVALID_STATE', `the rec is ${r.status}`);
      expireRec(ctx, r);
      res.json({ idRec: r.idRec, status: r.status });
    }),
  );

  // The scheduled attempt settles: the cobr CONCLUIDA, its amount received on the account.
  router.post(
    '/cobrs/:txid/pay',
    guarded((req, res) => {
      const c = payCobR(ctx, cobr(req.params.txid as string));
      res.json({ txid: c.txid, status: c.status, endToEndId: c.paid?.endToEndId });
    }),
  );

  // The attempt is rejected with the code given; AC05, AM09, DENC, DS27, DTED, MIDI, MSUC, NITX, RC09 reject the cobr.
  router.post(
    '/cobrs/:txid/reject',
    guarded((req, res) => {
      const { codigo } = parseBody(rejectSchema, req.body);
      const c = rejectCobR(ctx, cobr(req.params.txid as string), codigo);
      res.json({ txid: c.txid, status: c.status });
    }),
  );

  // The cycle ends unpaid.
  router.post(
    '/cobrs/:txid/expire',
    guarded((req, res) => {
      const c = expireCobR(ctx, cobr(req.params.txid as string));
      res.json({ txid: c.txid, status: c.status });
    }),
  );

  return router;
}
