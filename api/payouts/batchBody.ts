/**
 * The body of POST /v1/payouts/batches, checked in one pass: a 400 lists every invalid field of
 * every item at once (docs/api/payouts.md: `{field: "items.<row>.<field>", rowIndex,
 * message}` for the first MAX_REPORTED_ITEM_ERRORS, plus `totalInvalidFields`). A partner
 * fixing a 10,000-row file needs one round: the body's shape (createPayoutBatchBody) and each
 * item's Pix key for its type and recipientDocument's check digits are checked together; before,
 * a shape error anywhere hid every key and document error, and the total undercounted.
 * Pure: no database, so it runs before the idempotency claim.
 */
import type { z } from 'zod';
import { documentType, onlyDigits } from '../../core/documents';
import { MAX_REPORTED_ITEM_ERRORS } from '../../core/payouts/limits';
import { normalizePixKey } from '../../core/pixKeys';
import { errors } from '../errors/apiError';
import { createPayoutBatchBody, payoutItemInput, type CreatePayoutBatchBody } from './schema';

/** An item as it is staged: the key in its stored form, the document as digits. */
export interface StagedItem {
  pixKey: string;
  pixKeyType: string;
  amountCents: number;
  recipientName: string;
  recipientDocument: string | null;
  referenceId: string | null;
}

interface InvalidField {
  field: string;
  rowIndex?: number;
  messages: string[];
}

/** An item's fields in the order the schema lists them; a field named by no rule (unknown) sorts last. */
const ITEM_FIELD_ORDER = Object.keys(payoutItemInput.shape);
const fieldRank = (field: string) => {
  const rank = ITEM_FIELD_ORDER.indexOf(field.split('.')[2] ?? '');
  return rank < 0 ? ITEM_FIELD_ORDER.length : rank;
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function parseBatchBody(raw: unknown): { body: CreatePayoutBatchBody; items: StagedItem[] } {
  // One entry per field, in the order found; several broken rules of one field share it.
  const invalid = new Map<string, InvalidField>();
  const report = (path: PropertyKey[], message: string) => {
    const field = path.map(String).join('.');
    const rowIndex = path[0] === 'items' && typeof path[1] === 'number' ? path[1] : undefined;
    const entry = invalid.get(field) ?? { field, ...(rowIndex !== undefined ? { rowIndex } : {}), messages: [] };
    if (!entry.messages.includes(message)) entry.messages.push(message);
    invalid.set(field, entry);
  };

  const parsed = createPayoutBatchBody.safeParse(raw);
  for (const issue of parsed.success ? [] : parsed.error.issues) {
    // An unknown field is a field: each one gets its own entry, named.
    if (issue.code === 'unrecognized_keys')
      for (const key of issue.keys) report([...issue.path, key], `Unrecognized key: "${key}"`);
    else report(issue.path, issue.message);
  }

  // Each key and document whose own fields passed the shape check is checked too, whatever else
  // of its item or of the batch failed.
  const rawItems = isRecord(raw) && Array.isArray(raw.items) ? (raw.items as unknown[]) : [];
  // Each item's key in its stored form (null where it is invalid or could not be checked).
  const keys = rawItems.map((item, rowIndex) => {
    if (!isRecord(item)) return null;
    const at = (field: string) => ['items', rowIndex, field];
    let key: string | null = null;
    if (
      typeof item.pixKey === 'string' &&
      typeof item.pixKeyType === 'string' &&
      !invalid.has(at('pixKey').join('.')) &&
      !invalid.has(at('pixKeyType').join('.'))
    ) {
      const checked = normalizePixKey(item.pixKeyType, item.pixKey);
      if (checked.ok) key = checked.key;
      else report(at('pixKey'), checked.message);
    }
    const document = item.recipientDocument;
    if (
      typeof document === 'string' &&
      !invalid.has(at('recipientDocument').join('.')) &&
      !documentType(onlyDigits(document))
    ) {
      report(at('recipientDocument'), 'not a valid CPF or CNPJ');
    }
    return key;
  });

  if (!parsed.success || invalid.size > 0) {
    // Top-level fields first, then by row, and within a row in the schema's field order.
    const fields = [...invalid.values()]
      .sort((a, b) => (a.rowIndex ?? -1) - (b.rowIndex ?? -1) || fieldRank(a.field) - fieldRank(b.field))
      .map(({ messages, ...where }) => ({ ...where, message: messages.join('; ') }));
    throw errors.validation(`${fields.length} field(s) of the request body are invalid`, {
      fields: fields.slice(0, MAX_REPORTED_ITEM_ERRORS),
      totalInvalidFields: fields.length,
    });
  }

  // The provider takes documents as digits only: '529.982.247-25' is stored and sent as '52998224725'.
  const body = {
    ...parsed.data,
    items: parsed.data.items.map((item) =>
      item.recipientDocument === undefined ? item : { ...item, recipientDocument: onlyDigits(item.recipientDocument) },
    ),
  };
  // Nothing invalid: every item's key was checked and normalised above.
  return { body, items: body.items.map((item, rowIndex) => stagedItem(item, keys[rowIndex]!)) };
}

function stagedItem(item: z.infer<typeof payoutItemInput>, pixKey: string): StagedItem {
  return {
    pixKey,
    pixKeyType: item.pixKeyType,
    amountCents: item.amountCents,
    recipientName: item.recipientName,
    recipientDocument: item.recipientDocument ?? null,
    referenceId: item.referenceId ?? null,
  };
}
