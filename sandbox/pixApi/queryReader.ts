/**
 * Reads the query of a list operation (GET /cob, /pix, /webhook) and collects every rule it breaks,
 * so one 400 (CobConsultaInvalida, PixConsultaInvalida, …) names them all, as the standard's
 * "Consulta inválida" errors do. A parameter given twice is a violação, never silently the first.
 */
import { PixProblem, type ProblemType, type Violacao } from './problem';

/** RFC 3339 date-time with its offset; Date.parse alone would also take "2020-01-01" or "Jan 1". */
const RFC3339_RE = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

export class QueryReader {
  private readonly violacoes: Violacao[] = [];

  constructor(
    private readonly query: Record<string, unknown>,
    private readonly problem: ProblemType,
  ) {}

  string(name: string, pattern?: RegExp, rule?: string): string | undefined {
    const raw = this.query[name];
    if (raw === undefined) return undefined;
    if (typeof raw !== 'string') return this.refuse(name, 'informado mais de uma vez');
    if (pattern && !pattern.test(raw)) return this.refuse(name, rule ?? 'não respeita o schema', raw);
    return raw;
  }

  instant(name: string, required: boolean): { text: string; at: number } | undefined {
    const text = this.string(name);
    if (text === undefined) return required ? this.refuse(name, 'obrigatório') : undefined;
    // Upper-cased so Date.parse reads the lower-case "t" and "z" RFC 3339 allows.
    const at = RFC3339_RE.test(text) ? Date.parse(text.toUpperCase()) : NaN;
    if (Number.isNaN(at)) return this.refuse(name, 'um timestamp RFC 3339 com fuso, como 2020-04-01T00:00:00Z', text);
    return { text, at };
  }

  integer(name: string, min: number, max: number, fallback: number): number {
    const text = this.string(name);
    if (text === undefined) return fallback;
    const value = /^-?\d{1,10}$/.test(text) ? Number(text) : NaN;
    if (!(value >= min && value <= max)) return this.refuse(name, `um inteiro de ${min} a ${max}`, text) ?? fallback;
    return value;
  }

  boolean(name: string): boolean | undefined {
    const text = this.string(name);
    if (text === undefined || text === 'true' || text === 'false')
      return text === undefined ? undefined : text === 'true';
    return this.refuse(name, 'true ou false', text);
  }

  /** A rule across parameters (fim before inicio, cpf with cnpj). */
  check(ok: boolean, propriedade: string, razao: string): void {
    if (!ok) this.refuse(propriedade, razao);
  }

  /** Throws the collected violações, if any. */
  done(): void {
    if (this.violacoes.length > 0)
      throw new PixProblem(
        this.problem,
        'Os parâmetros da consulta não respeitam o schema ou não fazem sentido.',
        this.violacoes,
      );
  }

  private refuse(propriedade: string, rule: string, valor?: string): undefined {
    this.violacoes.push({
      razao: `O parâmetro ${propriedade} não é válido: ${rule}.`,
      propriedade,
      ...(valor === undefined ? {} : { valor: valor.slice(0, 200) }),
    });
    return undefined;
  }
}
