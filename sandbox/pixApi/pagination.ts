/**
 * `paginacao` of the list operations: pages counted from 0, 100 items each unless asked (1 to
 * 1000, the document's bounds). Every page is reachable: quantidadeDePaginas says how many there
 * are (at least 1, as the schema requires, even when nothing matched) and a page past the last is
 * an empty list, not an error.
 */
import type { QueryReader } from './queryReader';
import { INT32_MAX } from './schemas';

export interface PageRequest {
  paginaAtual: number;
  itensPorPagina: number;
}

export interface Paginacao extends PageRequest {
  quantidadeDePaginas: number;
  quantidadeTotalDeItens: number;
}

export function readPage(query: QueryReader): PageRequest {
  return {
    paginaAtual: query.integer('paginacao.paginaAtual', 0, INT32_MAX, 0),
    itensPorPagina: query.integer('paginacao.itensPorPagina', 1, 1000, 100),
  };
}

export function paginate<T>(items: readonly T[], page: PageRequest): { page: T[]; paginacao: Paginacao } {
  const start = page.paginaAtual * page.itensPorPagina;
  return {
    page: items.slice(start, start + page.itensPorPagina),
    paginacao: {
      ...page,
      quantidadeDePaginas: Math.max(1, Math.ceil(items.length / page.itensPorPagina)),
      quantidadeTotalDeItens: items.length,
    },
  };
}
