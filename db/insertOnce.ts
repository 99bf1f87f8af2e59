/**
 * "Create this row unless it exists" in one statement, for every store: `INSERT … ON CONFLICT DO
 * NOTHING RETURNING *`, then a read of the stored row when the insert found one. Not Sequelize's
 * findOrCreate: that wraps its INSERT in a temporary PL/pgSQL function (pg_temp), which the
 * runtime role may not create (no TEMPORARY on the database: scripts/lib/databaseRoles.ts), and
 * takes a savepoint, a SELECT and the INSERT for each create.
 */
import {
  EmptyResultError,
  type CreateOptions,
  type CreationAttributes,
  type InferAttributes,
  type Model,
  type ModelStatic,
  type Transaction,
  type WhereOptions,
} from 'sequelize';

export async function insertOnce<M extends Model>(
  model: ModelStatic<M>,
  attributes: CreationAttributes<M>,
  /** How to find the row the insert conflicted with (its primary key or unique columns). */
  where: WhereOptions<InferAttributes<M>>,
  transaction?: Transaction,
): Promise<{ row: M; created: boolean }> {
  try {
    // Typed through CreateOptions: create's typing answers void for a literal `ignoreDuplicates: true`,
    // though it resolves to the instance (RETURNING *) or throws EmptyResultError on a conflict.
    const options: CreateOptions<InferAttributes<M>> = { transaction, ignoreDuplicates: true };
    return { row: await model.create(attributes, options), created: true };
  } catch (err) {
    if (!(err instanceof EmptyResultError)) throw err;
  }
  const existing = await model.findOne({ where, transaction });
  if (!existing) throw new Error(`${model.tableName}: the insert conflicted but no row matches`);
  return { row: existing, created: false };
}
