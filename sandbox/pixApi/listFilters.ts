/**
 * The filters the BCB document gives both its cob and its rec lists (GET /cob, GET /rec): the
 * window `inicio`–`fim` (required), the debtor's `cpf` or `cnpj` (not both), `locationPresente`,
 * `status` and the page; read once here, echoed back as `parametros` the same way.
 */
import { paginate, readPage, type PageRequest, type Paginacao } from './pagination';
import type { QueryReader } from './queryReader';
import { CNPJ_RE, CPF_RE } from './schemas';

export interface ListFilters {
  inicio: { text: string; at: number };
  fim: { text: string; at: number };
  cpf?: string;
  cnpj?: string;
  locationPresente?: boolean;
  status?: string;
  page: PageRequest;
}

/** Reads the filters; `cnpjRule` is the words the problem uses for a bad cnpj. Ends the query (`done`). */
export function readListFilters(query: QueryReader, cnpjRule: string): ListFilters {
  const inicio = query.instant('inicio', true);
  const fim = query.instant('fim', true);
  const cpf = query.string('cpf', CPF_RE, '11 dígitos');
  const cnpj = query.string('cnpj', CNPJ_RE, cnpjRule);
  const locationPresente = query.boolean('locationPresente');
  const status = query.string('status');
  const page = readPage(query);
  query.check(!inicio || !fim || inicio.at <= fim.at, 'fim', 'anterior a inicio');
  query.check(cpf === undefined || cnpj === undefined, 'cpf', 'cpf e cnpj não podem ser usados juntos');
  query.done();
  // done() threw if a required instant was missing.
  return { inicio: inicio!, fim: fim!, cpf, cnpj, locationPresente, status, page };
}

/** Whether a record created at `createdAt` (ms) with this debtor is in the window and names the debtor asked for. */
export function inWindowForDebtor(
  f: ListFilters,
  createdAt: number,
  devedor: { cpf: string } | { cnpj: string } | null,
): boolean {
  return (
    createdAt >= f.inicio.at &&
    createdAt <= f.fim.at &&
    (f.cpf === undefined || (devedor !== null && 'cpf' in devedor && devedor.cpf === f.cpf)) &&
    (f.cnpj === undefined || (devedor !== null && 'cnpj' in devedor && devedor.cnpj === f.cnpj))
  );
}

/** One page of `found`, and the `parametros` the list answers with. */
export function listPage<T>(f: ListFilters, found: readonly T[]): { items: T[]; parametros: Record<string, unknown> } {
  const { page, paginacao }: { page: T[]; paginacao: Paginacao } = paginate(found, f.page);
  return {
    items: page,
    parametros: {
      inicio: f.inicio.text,
      fim: f.fim.text,
      ...(f.cpf !== undefined ? { cpf: f.cpf } : {}),
      ...(f.cnpj !== undefined ? { cnpj: f.cnpj } : {}),
      ...(f.locationPresente !== undefined ? { locationPresente: f.locationPresente } : {}),
      ...(f.status !== undefined ? { status: f.status } : {}),
      paginacao,
    },
  };
}
