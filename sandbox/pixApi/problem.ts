/**
 * API Pix errors: RFC 7807 problem+json, `type` = https://pix.bcb.gov.br/api/v2/error/<TipoErro>
 * with the error types the BCB document lists (its "Tratamento de erros" section), and
 * `violacoes` [{razao, propriedade, valor?}] naming each rule a request broke. Every answer of
 * /api/v2 that is not a success goes through here, so no client ever sees the /v1 error shape.
 */
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { SandboxHttpError } from '../errors';

const TYPE_BASE = 'https://pix.bcb.gov.br/api/v2/error/';

/** The error types this PSP answers, with their HTTP status and a short title. */
export const PROBLEMS = {
  RequisicaoInvalida: { status: 400, title: 'Requisição inválida.' },
  AcessoNegado: { status: 403, title: 'Acesso negado.' },
  NaoEncontrado: { status: 404, title: 'Não encontrado.' },
  ErroInternoDoServidor: { status: 500, title: 'Erro interno do servidor.' },
  ServicoIndisponivel: { status: 503, title: 'Serviço indisponível.' },
  CobNaoEncontrado: { status: 404, title: 'Cobrança não encontrada.' },
  CobOperacaoInvalida: { status: 400, title: 'Cobrança inválida.' },
  CobConsultaInvalida: { status: 400, title: 'Consulta de cobranças inválida.' },
  CobPayloadNaoEncontrado: { status: 404, title: 'Cobrança não encontrada.' },
  PixNaoEncontrado: { status: 404, title: 'Pix não encontrado.' },
  PixDevolucaoNaoEncontrada: { status: 404, title: 'Devolução não encontrada.' },
  PixConsultaInvalida: { status: 400, title: 'Consulta de Pix inválida.' },
  PixDevolucaoInvalida: { status: 400, title: 'Devolução inválida.' },
  WebhookOperacaoInvalida: { status: 400, title: 'Webhook inválido.' },
  WebhookNaoEncontrado: { status: 404, title: 'Webhook não encontrado.' },
  WebhookConsultaInvalida: { status: 400, title: 'Consulta de webhooks inválida.' },
  // Pix Automático (recs.ts), the types the document's "Tratamento de erros" lists for its tags.
  RecNaoEncontrada: { status: 404, title: 'Recorrência não encontrada.' },
  RecOperacaoInvalida: { status: 400, title: 'Recorrência inválida.' },
  RecConsultaInvalida: { status: 400, title: 'Consulta de recorrências inválida.' },
  SolicRecNaoEncontrada: { status: 404, title: 'Solicitação de recorrência não encontrada.' },
  SolicRecOperacaoInvalida: { status: 400, title: 'Solicitação de recorrência inválida.' },
  CobRNaoEncontrado: { status: 404, title: 'Cobrança recorrente não encontrada.' },
  CobROperacaoInvalida: { status: 400, title: 'Cobrança recorrente inválida.' },
  CobRConsultaInvalida: { status: 400, title: 'Consulta de cobranças recorrentes inválida.' },
  PayloadLocationRecNaoEncontrado: { status: 404, title: 'Location de recorrência não encontrada.' },
  PayloadLocationRecConsultaInvalida: { status: 400, title: 'Consulta de locations de recorrência inválida.' },
  RecPayloadOperacaoInvalida: { status: 400, title: 'Recorrência indisponível nesta location.' },
  WebhookRecOperacaoInvalida: { status: 400, title: 'Webhook de recorrências inválido.' },
  WebhookRecConsultaInvalida: { status: 400, title: 'Consulta de webhooks de recorrências inválida.' },
  WebhookCobROperacaoInvalida: { status: 400, title: 'Webhook de cobranças recorrentes inválido.' },
  WebhookCobRConsultaInvalida: { status: 400, title: 'Consulta de webhooks de cobranças recorrentes inválida.' },
} as const;

export type ProblemType = keyof typeof PROBLEMS;

export interface Violacao {
  razao: string;
  propriedade: string;
  valor?: string;
}

export class PixProblem extends Error {
  constructor(
    readonly type: ProblemType,
    readonly detail: string,
    readonly violacoes: Violacao[] = [],
  ) {
    super(detail);
    this.name = 'PixProblem';
  }
}

export function sendProblem(res: Response, problem: PixProblem): void {
  const { status, title } = PROBLEMS[problem.type];
  const body = {
    type: `${TYPE_BASE}${problem.type}`,
    title,
    status,
    detail: problem.detail,
    ...(problem.violacoes.length ? { violacoes: problem.violacoes } : {}),
  };
  res.status(status).type('application/problem+json').send(JSON.stringify(body));
}

/**
 * 401 has no API Pix error type (authentication is the OAuth layer's, outside the document), so it
 * is RFC 7807's plain "about:blank" with the status's title, plus the RFC 6750 challenge.
 */
export function sendUnauthorized(res: Response, detail: string): void {
  res.set('WWW-Authenticate', 'Bearer realm="api-pix", error="invalid_token"');
  res
    .status(401)
    .type('application/problem+json')
    .send(JSON.stringify({ type: 'about:blank', title: 'Unauthorized', status: 401, detail }));
}

export const problemNotFound: RequestHandler = (_req, res) => {
  sendProblem(res, new PixProblem('NaoEncontrado', 'Nenhum recurso da API Pix neste caminho.'));
};

/** Last handler of the API Pix routers: whatever went wrong becomes a problem, never the /v1 shape. */
export function problemErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, _next) => {
    if (err instanceof PixProblem) return sendProblem(res, err);
    // Shared sandbox code (charges, transfers) speaks SandboxHttpError; none should escape, but a 4xx stays a 4xx.
    if (err instanceof SandboxHttpError && err.status < 500) {
      return sendProblem(res, new PixProblem(err.status === 404 ? 'NaoEncontrado' : 'RequisicaoInvalida', err.message));
    }
    // body-parser: malformed JSON, a body too large, an unsupported charset.
    const status = (err as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return sendProblem(
        res,
        new PixProblem('RequisicaoInvalida', `O corpo da requisição não pôde ser lido: ${(err as Error).message}`),
      );
    }
    logger.error({ err }, 'api pix internal error');
    sendProblem(res, new PixProblem('ErroInternoDoServidor', 'Erro inesperado no PSP.'));
  };
}
