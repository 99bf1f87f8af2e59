/**
 * Checks every API Pix client applies before a request leaves and after an answer arrives: a
 * body or id that breaks the standard is our bug, refused here (PIX_API_INVALID_REQUEST) rather
 * than sent; an answer about another resource than the one addressed is no answer.
 */
import type { z } from 'zod';
import { ProviderError } from '../../../core/provider';
import { outcomeUnknown, PixApiErrorCodes } from './errors';

export function valid<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const where = parsed.error.issues.map((i) => `${[what, ...i.path].join('.')}: ${i.message}`).join('; ');
  throw new ProviderError(
    `API Pix request not sent, it breaks the standard: ${where}`,
    PixApiErrorCodes.invalidRequest,
    false,
  );
}

export function id(value: string, format: RegExp, what: string): string {
  if (!format.test(value))
    throw new ProviderError(
      `API Pix request not sent: ${what} is not in the standard's format`,
      PixApiErrorCodes.invalidRequest,
      false,
    );
  return value;
}

/** A DICT key in a path: an e-mail or +55 phone must be escaped; the standard caps it at 77. */
export function key(chave: string): string {
  if (chave.length < 1 || chave.length > 77)
    throw new ProviderError(
      'API Pix request not sent: chave must be 1 to 77 characters',
      PixApiErrorCodes.invalidRequest,
      false,
    );
  return encodeURIComponent(chave);
}

/** An answer about another resource than the one addressed is no answer to our call. */
export function sameId<T>(answer: T, answered: string, asked: string, route: string): T {
  if (answered !== asked) throw outcomeUnknown(`API Pix ${route}`, 200, 'the answer is about another resource');
  return answer;
}
