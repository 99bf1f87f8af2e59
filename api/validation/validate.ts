/** zod → 400 VALIDATION_ERROR with every invalid field listed in error.details.fields. */
import type { z } from 'zod';
import { errors } from '../errors/apiError';

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what = 'request body'): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const fields = result.error.issues.map((issue) => ({
    field: issue.path.length
      ? issue.path.join('.')
      : issue.code === 'unrecognized_keys'
        ? ((issue as { keys?: string[] }).keys?.join(',') ?? '')
        : '',
    message: issue.message,
  }));
  throw errors.validation(`${what} is invalid`, { fields });
}
