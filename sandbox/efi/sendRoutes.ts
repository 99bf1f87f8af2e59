/**
 * Efí's send and sent-Pix routes: PUT /v3/gn/pix/{idEnvio} (v3 router), GET
 * /v2/gn/pix/enviados/id-envio/{idEnvio}, /v2/gn/pix/enviados/{e2eId} and /v2/gn/pix/enviados
 * (v2 router), each on the token's account's sends only (another account's: not found). Errors: the send's in {nome, mensagem}; the reads' as problems
 * (PixEnviadoNaoEncontrado, PixConsultaInvalida), as Efí's pages show them.
 */
import { Router } from 'express';
import { requestAccount } from '../accounts';
import type { SandboxContext } from '../context';
import { paginate, readPage } from '../pixApi/pagination';
import { pathParam } from '../pixApi/pathParam';
import { QueryReader } from '../pixApi/queryReader';
import type { EfiSendRecord } from '../state';
import { EfiProblem } from './errors';
import { createSend, findSendByEndToEndId, sendStatus, sentBy, type EfiSendOptions } from './sends';
import { pixEnviadoJson } from './sendView';
import type { EfiSendWebhooks } from './webhooks';

const STATUSES = ['EM_PROCESSAMENTO', 'REALIZADO', 'NAO_REALIZADO'];

function notFound(by: 'e2eId' | 'idEnvio'): EfiProblem {
  return new EfiProblem(
    404,
    'PixEnviadoNaoEncontrado',
    'Não Encontrado',
    `Pix enviado não encontrado para o ${by} informado.`,
  );
}

/** Mount on the /v3/gn router. */
export function sendRoutes(ctx: SandboxContext, opts: EfiSendOptions, webhooks: EfiSendWebhooks): Router {
  const router = Router();
  router.put('/pix/:idEnvio', (req, res) => {
    const send = createSend(ctx, opts, requestAccount(res), pathParam(req, 'idEnvio'), req.body);
    webhooks.scheduleSettlement(send);
    res.status(201).json({
      idEnvio: send.idEnvio,
      e2eId: send.endToEndId,
      valor: pixEnviadoJson(ctx, send).valor,
      horario: { solicitacao: send.requestedAt },
      status: 'EM_PROCESSAMENTO',
    });
  });
  return router;
}

/** Mount on the /v2/gn router. */
export function sentPixRoutes(ctx: SandboxContext): Router {
  const router = Router();
  router.get('/pix/enviados/id-envio/:idEnvio', (req, res) => {
    const send = ctx.state.efiSends.get(pathParam(req, 'idEnvio'));
    if (!send || !sentBy(ctx, requestAccount(res), send)) throw notFound('idEnvio');
    res.json(pixEnviadoJson(ctx, send));
  });

  router.get('/pix/enviados/:e2eId', (req, res) => {
    const send = findSendByEndToEndId(ctx, pathParam(req, 'e2eId'));
    if (!send || !sentBy(ctx, requestAccount(res), send)) throw notFound('e2eId');
    res.json(pixEnviadoJson(ctx, send));
  });

  router.get('/pix/enviados', (req, res) => {
    const query = new QueryReader(req.query as Record<string, unknown>, 'PixConsultaInvalida');
    const inicio = query.instant('inicio', true);
    const fim = query.instant('fim', true);
    const status = query.string('status', new RegExp(`^(${STATUSES.join('|')})$`), STATUSES.join(', '));
    const devolucaoPresente = query.boolean('devolucaoPresente');
    const page = readPage(query);
    query.check(!inicio || !fim || inicio.at <= fim.at, 'fim', 'anterior a inicio');
    query.done();
    const from = inicio!.at;
    const to = fim!.at;
    const account = requestAccount(res);
    const found = [...ctx.state.efiSends.values()]
      .filter((s: EfiSendRecord) => {
        const at = Date.parse(s.requestedAt);
        return (
          sentBy(ctx, account, s) &&
          at >= from &&
          at <= to &&
          (status === undefined || sendStatus(ctx, s) === status) &&
          (devolucaoPresente === undefined || s.devolucoes.length > 0 === devolucaoPresente)
        );
      })
      .sort((a, b) => a.requestedAt.localeCompare(b.requestedAt) || a.idEnvio.localeCompare(b.idEnvio));
    const { page: pix, paginacao } = paginate(found, page);
    res.json({
      parametros: { inicio: inicio!.text, fim: fim!.text, paginacao },
      pix: pix.map((s) => pixEnviadoJson(ctx, s, { statement: true })),
    });
  });
  return router;
}
