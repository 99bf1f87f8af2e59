/**
 * A path parameter as a string. Express types a parameter as string | string[] when a route has
 * middleware before its handler (the scope check); a `:name` segment is always one string.
 */
import type { Request } from 'express';

export function pathParam(req: Request, name: string): string {
  const value = req.params[name];
  return Array.isArray(value) ? value.join('/') : (value ?? '');
}
