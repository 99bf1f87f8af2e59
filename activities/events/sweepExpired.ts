import type { Sequelize } from 'sequelize';
import { idempotencyStore } from '../../db/idempotency';
import { requestSignatureStore } from '../../db/identity';

/** Housekeeping run by the dispatcher: expired idempotency keys and replay-guard entries. */
export async function sweepExpired(deps: {
  sequelize: Sequelize;
}): Promise<{ idempotencyKeys: number; signatures: number }> {
  const idempotencyKeys = await idempotencyStore.sweepExpired(deps.sequelize);
  const signatures = await requestSignatureStore.sweepExpired(deps.sequelize);
  return { idempotencyKeys, signatures };
}
