/**
 * Bench-only workflows, bundled by the bench's own worker (never by the gateway's): baseline (b),
 * the floor of a charge create. A charge create is an Update-With-Start on chargeLifecycle; this
 * is the same round trip with nothing behind it (no activity, no database), so the gap between
 * the two is our code, not Temporal's.
 */
import { condition, defineUpdate, setHandler } from '@temporalio/workflow';

export const noopUpdate = defineUpdate<string>('benchNoop');

export async function benchNoopWorkflow(): Promise<void> {
  let answered = false;
  setHandler(noopUpdate, () => {
    answered = true;
    return 'ok';
  });
  // Ends once the update is answered, as a charge workflow leaves the API's hands then.
  await condition(() => answered);
}
