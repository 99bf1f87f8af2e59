/**
 * The gateway's client of Efí's own Pix routes beside its API Pix: sending a Pix
 * (`PUT /v3/gn/pix/{idEnvio}`), reading sent Pix (`GET /v2/gn/pix/enviados…`), the account's
 * balance (`GET /v2/gn/saldo`) and MED (`/v2/gn/infracoes…`). It rides on the account's
 * connection (pixApi/connection.ts): the same host, OAuth2 token and client certificate as the
 * API Pix client, never a second implementation of them. Every answer is checked (schemas.ts),
 * every failure is a ProviderError (errors.ts).
 */
import type { z } from 'zod';
import { ProviderError } from '../../../core/provider';
import type { AuthorizedCaller, CallSpec } from '../pixApi/authorizedCall';
import type { PixApiConnection } from '../pixApi/connection';
import { outcomeUnknown, PixApiErrorCodes, type OperationCodes } from '../pixApi/errors';
import { efiAnswerError, isEfiNotFound } from './errors';
import {
  ID_ENVIO,
  balanceSchema,
  sendAnswerSchema,
  sentPageSchema,
  sentPixSchema,
  type SendAnswer,
  type SentPix,
} from './schemas';
import { infractionPageSchema, type EfiInfraction } from './infractionSchemas';

export interface SendBody {
  valor: string;
  pagador: { chave: string; infoPagador?: string };
  favorecido: { chave: string; cpf?: string; cnpj?: string };
}

/** Unused by Efí's routes (their errors are mapped by errors.ts); CallSpec asks for them. */
const CODES: OperationCodes = { refused: 'PROVIDER_REJECTED', notFound: 'PROVIDER_NOT_FOUND' };
const MAX_PAGE_SIZE = 1000;
const MAX_PAGES = 10_000;

export class EfiClient {
  private readonly caller: AuthorizedCaller;

  constructor(connection: PixApiConnection, efiBaseUrl: string) {
    this.caller = connection.caller(efiBaseUrl, 'EFI_API_BASE_URL');
  }

  /** Sends a Pix; idEnvio is Efí's idempotency key (a second PUT with it answers 409 id_envio_duplicado). */
  async send(idEnvio: string, body: SendBody): Promise<SendAnswer> {
    const answer = await this.required({
      method: 'PUT',
      path: `/v3/gn/pix/${sendId(idEnvio)}`,
      body,
      schema: sendAnswerSchema,
      route: 'PUT /v3/gn/pix/{idEnvio}',
    });
    if (answer.idEnvio !== idEnvio)
      throw outcomeUnknown('Efí PUT /v3/gn/pix/{idEnvio}', 201, 'the answer is about another send');
    return answer;
  }

  /** The send of this idEnvio, or null when Efí has none. */
  async sent(idEnvio: string): Promise<SentPix | null> {
    const found = await this.caller.call({
      ...this.spec('GET /v2/gn/pix/enviados/id-envio/{idEnvio}'),
      method: 'GET',
      path: `/v2/gn/pix/enviados/id-envio/${sendId(idEnvio)}`,
      schema: sentPixSchema,
    });
    // An answer about another send is no answer to our question.
    if (found && found.idEnvio && found.idEnvio !== idEnvio)
      throw outcomeUnknown('Efí GET /v2/gn/pix/enviados/id-envio/{idEnvio}', 200, 'the answer is about another send');
    return found;
  }

  /** Every Pix sent in [inicio, fim] (RFC 3339), all pages; a send seen on two pages is returned once. */
  async sentBetween(range: { inicio: string; fim: string }): Promise<SentPix[]> {
    const seen = new Map<string, SentPix>();
    for (let page = 0; ; page++) {
      const answer = await this.required({
        method: 'GET',
        path: '/v2/gn/pix/enviados',
        query: {
          inicio: range.inicio,
          fim: range.fim,
          'paginacao.paginaAtual': String(page),
          'paginacao.itensPorPagina': String(MAX_PAGE_SIZE),
        },
        schema: sentPageSchema,
        route: 'GET /v2/gn/pix/enviados',
      });
      const { paginaAtual, quantidadeDePaginas } = answer.parametros.paginacao;
      if (paginaAtual !== page)
        throw outcomeUnknown('Efí GET /v2/gn/pix/enviados', 200, `asked for page ${page}, got ${paginaAtual}`);
      for (const pix of answer.pix) seen.set(pix.idEnvio ?? pix.endToEndId ?? `${page}:${seen.size}`, pix);
      if (page + 1 >= quantidadeDePaginas) return [...seen.values()];
      if (page + 1 >= MAX_PAGES)
        throw outcomeUnknown(
          'Efí GET /v2/gn/pix/enviados',
          200,
          `more than ${MAX_PAGES} pages; ask for a shorter range`,
        );
    }
  }

  /** The account's balance, in cents. */
  async balanceCents(): Promise<number> {
    const { saldo } = await this.required({
      method: 'GET',
      path: '/v2/gn/saldo',
      schema: balanceSchema,
      route: 'GET /v2/gn/saldo',
    });
    const [reais, centavos] = saldo.split('.');
    return Number(reais) * 100 + Number(centavos);
  }

  /** MED: the infractions against the account created in [inicio, fim]. */
  async infractions(range: { inicio: string; fim: string }): Promise<EfiInfraction[]> {
    const seen = new Map<string, EfiInfraction>();
    for (let page = 0; ; page++) {
      const answer = await this.required({
        method: 'GET',
        path: '/v2/gn/infracoes',
        query: { inicio: range.inicio, fim: range.fim, 'paginacao.paginaAtual': String(page) },
        schema: infractionPageSchema,
        route: 'GET /v2/gn/infracoes',
      });
      const { paginaAtual, quantidadeDePaginas } = answer.parametros.paginacao;
      if (paginaAtual !== page)
        throw outcomeUnknown('Efí GET /v2/gn/infracoes', 200, `asked for page ${page}, got ${paginaAtual}`);
      for (const infraction of answer.infracoes) seen.set(infraction.idInfracao, infraction);
      if (page + 1 >= quantidadeDePaginas || page + 1 >= MAX_PAGES) return [...seen.values()];
    }
  }

  /** MED: our analysis of an infraction (aceito: we return the money; rejeitado: we contest it). */
  async defend(idInfracao: string, body: { analise: 'aceito' | 'rejeitado'; justificativa: string }): Promise<void> {
    // 201 without a body: any 2xx is the answer.
    await this.caller.call({
      ...this.spec('POST /v2/gn/infracoes/{idInfracao}/defesa'),
      foreign: { errorOf: efiAnswerError },
      method: 'POST',
      path: `/v2/gn/infracoes/${encodeURIComponent(idInfracao)}/defesa`,
      body,
      schema: null,
    });
  }

  private spec(route: string): Pick<CallSpec<unknown>, 'route' | 'codes' | 'foreign' | 'what'> {
    return {
      route,
      codes: CODES,
      what: `Efí ${route}`,
      foreign: { errorOf: efiAnswerError, isNotFound: isEfiNotFound },
    };
  }

  private async required<T>(
    spec: Omit<CallSpec<T>, 'codes' | 'foreign' | 'what'> & { schema: z.ZodType<T> },
  ): Promise<T> {
    const answer = await this.caller.call<T>({
      ...spec,
      ...this.spec(spec.route),
      foreign: { errorOf: efiAnswerError },
    });
    if (answer === null) throw new Error('unreachable: null without a not-found rule');
    return answer;
  }
}

function sendId(idEnvio: string): string {
  if (!ID_ENVIO.test(idEnvio))
    throw new ProviderError(
      'Efí request not sent: idEnvio must be 1 to 35 alphanumerics',
      PixApiErrorCodes.invalidRequest,
      false,
    );
  return idEnvio;
}
