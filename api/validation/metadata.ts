/**
 * `metadata`, wherever a request accepts it (charges, payout batches). It is copied into the
 * workflow history, the row, every outbox event, every webhook delivery and the idempotency
 * record, so it is capped: ≤ 50 keys of ≤ 64 characters, string values ≤ 500 characters,
 * depth ≤ 2 (a value may be one flat array or object of scalars), ≤ 8 KB serialized.
 */
import { z } from 'zod';
import { CONTROL_CHARACTERS_MESSAGE, NO_CONTROL_CHARACTERS, text } from './text';

export const METADATA_LIMITS = { keys: 50, keyLength: 64, valueLength: 500, serializedBytes: 8 * 1024 } as const;

const VALUE_MESSAGE = `must be a string of at most ${METADATA_LIMITS.valueLength} characters, a number, a boolean, null, or one flat array or object of those`;

const scalar = z.union([text().max(METADATA_LIMITS.valueLength), z.number(), z.boolean(), z.null()]);
const keyRules = { minLength: 1, maxLength: METADATA_LIMITS.keyLength, pattern: NO_CONTROL_CHARACTERS.source };
const nested = z.union([
  z.array(scalar).max(METADATA_LIMITS.keys),
  z.record(z.string(), scalar).meta({ maxProperties: METADATA_LIMITS.keys, propertyNames: keyRules }),
]);

// Keys are checked here rather than by the record's key schema, so an error names the field
// `metadata` and never echoes a bad key (it may hold a control character) as a field name.
function checkKeys(object: Record<string, unknown>, ctx: z.RefinementCtx, path: string[]) {
  const keys = Object.keys(object);
  if (keys.length > METADATA_LIMITS.keys)
    ctx.addIssue({ code: 'custom', path, message: `at most ${METADATA_LIMITS.keys} keys` });
  if (keys.some((k) => k.length === 0 || k.length > METADATA_LIMITS.keyLength)) {
    ctx.addIssue({ code: 'custom', path, message: `keys must have 1 to ${METADATA_LIMITS.keyLength} characters` });
  }
  if (keys.some((k) => !NO_CONTROL_CHARACTERS.test(k)))
    ctx.addIssue({ code: 'custom', path, message: `keys ${CONTROL_CHARACTERS_MESSAGE}` });
}

export const metadata = () =>
  z
    .record(z.string(), z.union([scalar, nested], { error: VALUE_MESSAGE }))
    .superRefine((value, ctx) => {
      checkKeys(value, ctx, []);
      for (const [key, inner] of Object.entries(value)) {
        if (inner && typeof inner === 'object' && !Array.isArray(inner))
          checkKeys(inner as Record<string, unknown>, ctx, [key]);
      }
      if (Buffer.byteLength(JSON.stringify(value)) > METADATA_LIMITS.serializedBytes) {
        ctx.addIssue({ code: 'custom', message: `at most ${METADATA_LIMITS.serializedBytes} bytes as JSON` });
      }
    })
    .meta({
      maxProperties: METADATA_LIMITS.keys,
      propertyNames: keyRules,
      description:
        `Reconciliation data, returned as sent: at most ${METADATA_LIMITS.keys} keys of at most ${METADATA_LIMITS.keyLength} characters; ` +
        `values are strings (≤ ${METADATA_LIMITS.valueLength} characters), numbers, booleans, null, or one flat array or object of those (depth ≤ 2); ` +
        `at most ${METADATA_LIMITS.serializedBytes} bytes as JSON. No control characters.`,
      example: { orderId: '1001' },
    });
