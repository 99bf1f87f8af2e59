/**
 * Efí's two error forms (docs/standards/efi-pix.yaml, info.description): `{"nome", "mensagem"}`
 * on the send, the balance and authentication, and an RFC 7807 problem (`type` =
 * https://pix.bcb.gov.br/api/v2/error/<Nome>, `title`, `status`, `detail`, `violacoes`?) on the
 * sent-Pix reads and MED, as Efí's pages show each one. Every answer of /v2/gn and /v3/gn that is
 * not a success goes through here, so neither the /v1 shape nor API Pix's leaks onto Efí's routes.
 */
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { SandboxHttpError } from '../errors';
import { PixProblem, PROBLEMS, type Violacao } from '../pixApi/problem';

const TYPE_BASE = 'https://pix.bcb.gov.br/api/v2/error/';

/** `{"nome", "mensagem"}` with its HTTP status. */
export class EfiError extends Error {
  constructor(
    readonly status: number,
    readonly nome: string,
    readonly mensagem: string,
  ) {
    super(mensagem);
    this.name = 'EfiError';
  }
}

/** The problem form, named as Efí names it (PixEnviadoNaoEncontrado, InfracaoNaoEncontrada, …). */
export class EfiProblem extends Error {
  constructor(
    readonly status: number,
    readonly nome: string,
    readonly title: string,
    readonly detail: string,
    readonly violacoes: Violacao[] = [],
  ) {
    super(detail);
    this.name = 'EfiProblem';
  }
}

export function sendEfiError(res: Response, err: EfiError): void {
  res.status(err.status).json({ nome: err.nome, mensagem: err.mensagem });
}

export function sendEfiProblem(res: Response, p: EfiProblem): void {
  res.status(p.status).json({
    type: `${TYPE_BASE}${p.nome}`,
    title: p.title,
    status: p.status,
    detail: p.detail,
    ...(p.violacoes.length ? { violacoes: p.violacoes } : {}),
  });
}

/** The injected fault of faults.ts on Efí's routes (app.ts). */
export function sendEfiUnavailable(res: Response): void {
  sendEfiError(
    res,
    new EfiError(
      503,
      'servico_indisponivel',
      'Falha injetada: o serviço está indisponível (a requisição não foi processada).',
    ),
  );
}

export const efiNotFound: RequestHandler = (_req, res) => {
  sendEfiError(res, new EfiError(404, 'nao_encontrado', 'Nenhum recurso neste caminho.'));
};

/**
 * Last handler of the Efí routers. A PixProblem (the shared QueryReader's) becomes an EfiProblem
 * of the same name, unless the route said which name its consultation errors carry (`listProblem`).
 */
export function efiErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, _next) => {
    if (err instanceof EfiError) return sendEfiError(res, err);
    if (err instanceof EfiProblem) return sendEfiProblem(res, err);
    if (err instanceof PixProblem) {
      const { status, title } = PROBLEMS[err.type];
      return sendEfiProblem(res, new EfiProblem(status, err.type, title, err.detail, err.violacoes));
    }
    if (err instanceof SandboxHttpError && err.status < 500)
      return sendEfiError(res, new EfiError(err.status, 'valor_invalido', err.message));
    // body-parser: malformed JSON, a body too large.
    const status = (err as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500)
      return sendEfiError(res, new EfiError(400, 'valor_invalido', 'O corpo da requisição não pôde ser lido.'));
    logger.error({ err }, 'efi route internal error');
    sendEfiError(res, new EfiError(500, 'erro_aplicacao', 'Ocorreu um erro inesperado.'));
  };
}
