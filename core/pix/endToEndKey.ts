/**
 * A provider-supplied endToEndId made safe to use as a key (workflow ids, index entries): a
 * well-formed one as is, anything else (wrong format, kilobytes long) as a fixed-length hash.
 * The provider alone controls the value; Temporal refuses ids past its limit and PostgreSQL
 * refuses oversized index entries, and neither may turn a payment into a 500.
 */
import { createHash } from 'node:crypto';
import { isValidEndToEndId } from './brcode';

export function endToEndKey(endToEndId: string): string {
  if (isValidEndToEndId(endToEndId)) return endToEndId;
  return `sha256-${createHash('sha256').update(endToEndId, 'utf8').digest('hex')}`;
}
