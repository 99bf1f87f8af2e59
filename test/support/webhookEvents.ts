/**
 * Every event recorded in the outbox, as its webhook deliveries carry it
 * (db/events/deliveryStore.ts, insertDeliveriesOfSql: `{eventId, type, createdAt, data: payload}`), parsed with the
 * payload schema the API document gives its type (api/events/openapi.ts, webhookEventSchemas):
 * the `data` of charge.paid is the charge, and so on. Also flags a field of `data` the schema does
 * not name (a receiver's generated type would not know it). Called at the end of the integration
 * files whose flows record each kind of event; on a shared stack it sees the other files' events
 * too, which must match as well.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import type { z } from 'zod';
import { webhookEventSchemas } from '../../api/events/openapi';

/** The object schemas `schema` may be (a union's branches, a nullable's inner object). */
function objectShapes(schema: z.ZodType): Record<string, z.ZodType>[] {
  const def = (schema as unknown as { def: { type: string; options?: z.ZodType[]; innerType?: z.ZodType } }).def;
  if (def.type === 'object') return [(schema as z.ZodObject).shape];
  if (def.type === 'union') return (def.options ?? []).flatMap(objectShapes);
  if (def.innerType) return objectShapes(def.innerType);
  return [];
}

export interface RecordedEventsCheck {
  /** Event types seen, sorted. */
  types: string[];
  /** `<type> <eventId>: <problem>` for each event that does not match its documented schema. */
  mismatches: string[];
}

export async function checkRecordedEvents(sequelize: Sequelize): Promise<RecordedEventsCheck> {
  const rows = await sequelize.query<{ id: string; type: string; created_at: Date; payload: unknown }>(
    'SELECT id, type, created_at, payload FROM outbox_events ORDER BY created_at',
    { type: QueryTypes.SELECT },
  );
  const mismatches: string[] = [];
  for (const row of rows) {
    const body = {
      eventId: row.id,
      type: row.type,
      createdAt: new Date(row.created_at).toISOString(),
      data: row.payload,
    };
    const schema = webhookEventSchemas[row.type as keyof typeof webhookEventSchemas];
    if (!schema) {
      mismatches.push(`${row.type} ${row.id}: no documented event type`);
      continue;
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      mismatches.push(
        `${row.type} ${row.id}: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`,
      );
      continue;
    }
    const shapes = objectShapes(schema.shape.data as z.ZodType);
    const data = row.payload as Record<string, unknown>;
    const undocumented = Object.keys(data).filter((key) => !shapes.some((shape) => key in shape));
    if (shapes.length > 0 && undocumented.length > 0)
      mismatches.push(`${row.type} ${row.id}: data carries undocumented ${undocumented.join(', ')}`);
  }
  return { types: [...new Set(rows.map((r) => r.type))].sort(), mismatches: mismatches.slice(0, 20) };
}
