/** History lengths read through the Temporal client (benchmarks and tests). */
import type { Client } from '@temporalio/client';

/** The longest history of any run of a workflow id (each continue-as-new starts a new run). */
export async function longestHistory(client: Client, workflowId: string): Promise<number> {
  let longest = (await client.workflow.getHandle(workflowId).describe()).historyLength;
  for await (const run of client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
    longest = Math.max(longest, run.historyLength);
  return longest;
}
