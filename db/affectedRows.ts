/** Rows changed by a raw UPDATE/DELETE through sequelize.query (its second result, per dialect). */
export function affectedRows(result: unknown): number {
  if (typeof result === 'number') return result;
  return (result as { rowCount?: number })?.rowCount ?? 0;
}
