/** Checks of a JSON body shared by Efí's routes (sends, split configurations): Efí's 400 `valor_invalido`. */
import { EfiError } from './errors';

export const invalid = (mensagem: string) => new EfiError(400, 'valor_invalido', mensagem);

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Efí refuses properties it does not know; `where` names the object in the message. */
export function onlyKeys(v: Record<string, unknown>, allowed: readonly string[], where: string): void {
  const extra = Object.keys(v).filter((k) => !allowed.includes(k));
  if (extra.length) throw invalid(`Propriedades não permitidas em ${where}: ${extra.join(', ')}.`);
}
