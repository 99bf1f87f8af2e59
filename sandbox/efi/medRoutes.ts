/**
 * MED at Efí (GET /v2/gn/infracoes, POST /v2/gn/infracoes/{idInfracao}/defesa) over the
 * sandbox's one store of infractions (sandbox/infractions.ts), in the shape of Efí's
 * "Endpoints exclusivos" page and the SDK's medList type. Status: OPEN → ABERTA; after the
 * defence `aceito` (the account accepts: the money goes back) → ACEITA, with
 * dadosAnalise.recebimentoDefesa and finalizacao; after `rejeitado` (the account defends the Pix)
 * → EM_DEFESA, with recebimentoDefesa only, until Efí decides it (the sandbox's control
 * POST /sandbox/infractions/{id}/decision, or the plan it was opened with): ACEITA (the claim
 * upheld) or REJEITADA (the defence won), with finalizacao; Efí may also cancel an open or defended
 * case: CANCELADA_EFI, with finalizacao. Errors are problems, as Efí's page shows them. A token
 * sees the infractions of the Pix its account received only.
 */
import { Router } from 'express';
import type { ProviderInfraction } from '../../core/provider';
import { requestAccount, type SandboxAccount } from '../accounts';
import type { SandboxContext } from '../context';
import { SandboxHttpError } from '../errors';
import { answerInfraction, decideDueInfractions } from '../infractions';
import { paginate, readPage } from '../pixApi/pagination';
import { pathParam } from '../pixApi/pathParam';
import { PixProblem } from '../pixApi/problem';
import { QueryReader } from '../pixApi/queryReader';
import { centsToValor } from '../pixApi/valor';
import { findReceivedPixPaymentByE2e } from '../receivedPayments';
import { EfiProblem } from './errors';

const STATUS = {
  OPEN: 'ABERTA',
  IN_DEFENCE: 'EM_DEFESA',
  ACCEPTED: 'ACEITA',
  REJECTED: 'REJEITADA',
  CANCELLED: 'CANCELADA_EFI',
} as const;
const TIPO_SITUACAO: Record<string, string> = {
  FRAUD: 'acesso fraudulento',
  SCAM: 'golpe',
  ACCOUNT_TAKEOVER: 'aquisição da conta',
  COERCION: 'coerção',
  OTHER: 'outro',
};

function consultaInvalida(detail: string, violacoes: PixProblem['violacoes'] = []): EfiProblem {
  return new EfiProblem(400, 'InfracoesConsultaInvalida', 'Consulta Inválida', detail, violacoes);
}

/** The account an infraction concerns: the one that received the Pix (the default account when unknown). */
function infractionAccount(ctx: SandboxContext, i: ProviderInfraction): SandboxAccount {
  const payment = findReceivedPixPaymentByE2e(ctx, i.endToEndId);
  return payment ? ctx.accounts.ownerOf(payment.pixKey) : ctx.accounts.default;
}

export function infracaoJson(ctx: SandboxContext, i: ProviderInfraction) {
  const payment = findReceivedPixPaymentByE2e(ctx, i.endToEndId);
  const account = infractionAccount(ctx, i);
  return {
    idInfracao: i.id,
    endToEndId: i.endToEndId,
    protocolo: i.id.slice(-8),
    ...(payment ? { dataTransacao: payment.paidAt, chave: payment.pixKey } : {}),
    valor: centsToValor(i.amountCents ?? payment?.amountCents ?? 0),
    status: STATUS[i.status],
    razao: 'Solicitação de devolução',
    tipoSituacao: TIPO_SITUACAO[i.reason] ?? 'desconhecido',
    ...(i.justification ? { defesa: i.justification } : {}),
    identificadorTicket: [],
    dadosAnalise: {
      abertura: i.openedAt,
      prazoFinalizacao: i.analysisDeadline,
      ...(i.answeredAt ? { recebimentoDefesa: i.answeredAt } : {}),
      ...(i.closedAt ? { finalizacao: i.closedAt } : {}),
    },
    ...(payment
      ? {
          origem: {
            nomeParticipante: payment.payer.institution ?? 'Banco Sandbox',
            conta: payment.payer.account ?? '',
            nome: payment.payer.name,
            documento: payment.payer.document,
          },
        }
      : {}),
    destino: {
      nomeParticipante: 'Banco Sandbox',
      conta: '0001',
      nome: account.name,
      documento: account.cnpj,
    },
    criadoEm: i.openedAt,
    atualizadoEm: i.closedAt ?? i.answeredAt ?? i.openedAt,
  };
}

export function medRoutes(ctx: SandboxContext): Router {
  const router = Router();

  router.get('/infracoes', (req, res) => {
    const query = new QueryReader(req.query as Record<string, unknown>, 'RequisicaoInvalida');
    const inicio = query.instant('inicio', true);
    const fim = query.instant('fim', true);
    const page = readPage(query);
    query.check(!inicio || !fim || inicio.at <= fim.at, 'fim', 'anterior a inicio');
    try {
      query.done();
    } catch (err) {
      if (err instanceof PixProblem)
        throw consultaInvalida('Os parâmetros de consulta não respeitam o schema ou não fazem sentido.', err.violacoes);
      throw err;
    }
    const account = requestAccount(res);
    decideDueInfractions(ctx);
    const found = [...ctx.state.infractions.values()]
      .filter((i) => {
        const at = Date.parse(i.openedAt);
        return at >= inicio!.at && at <= fim!.at && infractionAccount(ctx, i).id === account.id;
      })
      .sort((a, b) => a.openedAt.localeCompare(b.openedAt) || a.id.localeCompare(b.id));
    const { page: infracoes, paginacao } = paginate(found, page);
    res.json({
      parametros: { inicio: inicio!.text, fim: fim!.text, paginacao },
      infracoes: infracoes.map((i) => infracaoJson(ctx, i)),
    });
  });

  router.post('/infracoes/:idInfracao/defesa', (req, res) => {
    const id = pathParam(req, 'idInfracao');
    const body = req.body as unknown;
    const b =
      typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
    const violacoes: PixProblem['violacoes'] = [];
    if (!b) violacoes.push({ razao: 'O corpo deve ser um objeto JSON.', propriedade: 'body' });
    else {
      for (const k of Object.keys(b))
        if (k !== 'analise' && k !== 'justificativa')
          violacoes.push({ razao: 'Propriedade não permitida.', propriedade: `body.${k}` });
      if (b.analise !== 'aceito' && b.analise !== 'rejeitado')
        violacoes.push({ razao: 'Deve ser aceito ou rejeitado.', propriedade: 'body.analise' });
      if (typeof b.justificativa !== 'string' || b.justificativa.length < 1 || b.justificativa.length > 2000)
        violacoes.push({ razao: 'Texto de 1 a 2000 caracteres.', propriedade: 'body.justificativa' });
    }
    if (violacoes.length)
      throw consultaInvalida(
        'A requisição que busca apresentar uma defesa de infração não respeita o schema ou está semanticamente errada.',
        violacoes,
      );
    const infraction = ctx.state.infractions.get(id);
    if (!infraction || infractionAccount(ctx, infraction).id !== requestAccount(res).id)
      throw new EfiProblem(404, 'InfracaoNaoEncontrada', 'Não Encontrado', 'Infração não encontrada.');
    if (!infraction.decision && ctx.now().getTime() > Date.parse(infraction.analysisDeadline))
      throw new EfiProblem(422, 'InfracaoOperacaoInvalida', 'Operação Inválida', 'O prazo para defesa foi excedido.', [
        { razao: 'O prazo para defesa foi excedido.', propriedade: 'body.infractionId' },
      ]);
    try {
      answerInfraction(ctx, id, {
        decision: b!.analise === 'aceito' ? 'ACCEPT' : 'REJECT',
        justification: b!.justificativa as string,
      });
    } catch (err) {
      if (err instanceof SandboxHttpError && err.status === 409)
        throw new EfiProblem(
          409,
          'InfracaoOperacaoInvalida',
          'Operação Inválida',
          'A requisição que busca apresentar uma defesa de infração não respeita o schema ou está semanticamente errada.',
          [{ razao: 'A defesa para essa infração já foi criada.', propriedade: 'body.infractionId' }],
        );
      throw err;
    }
    // Efí documents no body for this 201 ("Defesa de infração MED criada").
    res.status(201).end();
  });

  return router;
}
