/**
 * Bench-only workflows, bundled by the bench's own workers (never by the gateway's):
 *   - baseline (b), the floor of a charge create. A charge create is an Update-With-Start on
 *     chargeLifecycle; benchNoopWorkflow is the same round trip with nothing behind it (no
 *     activity, no database), so the gap between the two is our code, not Temporal's;
 *   - the webhook part's floor (scripts/lib/floorBench.ts). A paid charge is a signal to its
 *     charge's run, which settles in a local activity writing rows; benchFloorWorkflow is started
 *     and signalled at once (signalWithStart, one run per event), runs ONE local activity that
 *     INSERTs one row, and completes: the least a signalled workflow that writes can cost.
 */
import { condition, defineSignal, defineUpdate, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { FloorActivities } from '../floorActivities';

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

/** The floor's event: what the provider's payment callback is to a charge's run. */
export const floorMark = defineSignal('benchFloorMark');

const { markFloor } = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '30 seconds' });

/** `id`: the row to write, the workflow id (one run per event). */
export async function benchFloorWorkflow(id: string): Promise<void> {
  let signalled = false;
  setHandler(floorMark, () => {
    signalled = true;
  });
  // signalWithStart delivers the signal in the run's first task: this does not wait in practice.
  await condition(() => signalled);
  await markFloor(id);
}
