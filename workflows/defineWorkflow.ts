/**
 * A workflow type named once, beside its function and its messages, in workflows/<domain>/definitions.ts:
 *
 *   export const chargeLifecycleWorkflow = defineWorkflow<typeof chargeLifecycle>('chargeLifecycle')
 *     .handles(issueChargeUpdate, paymentConfirmedSignal, cancelChargeUpdate, chargeStatusQuery);
 *
 * The function is imported as a type only (`import type`), so whoever imports a definition (the
 * API, activities, workers) never loads workflow code. Every start, signal, update, query and
 * schedule action takes a definition (core/temporal/workflows.ts; child workflows through
 * workflows/children.ts), so its arguments are checked against the function's parameters, and a
 * message can only be sent to a workflow that declares it. The name is the workflow type running
 * histories are recorded under: it never changes. test/unit/workflowDefinitions.test.ts checks that
 * every definition names a function exported by workflows/index.ts, and that every such function
 * has one definition. The type a definition has lives below every layer (core/temporal/definition.ts),
 * so core's Temporal helpers read it without importing workflows/.
 */
import type { Workflow } from '@temporalio/common';
import type { WorkflowDefinition, WorkflowMessage } from '../core/temporal/definition';

export function defineWorkflow<W extends Workflow>(name: string): WorkflowDefinition<W> {
  return definition<W, never>(name, []);
}

function definition<W extends Workflow, M extends WorkflowMessage>(
  name: string,
  messages: readonly M[],
): WorkflowDefinition<W, M> {
  return {
    type: 'workflow',
    name,
    messages,
    handles: <const N extends readonly WorkflowMessage[]>(...next: N) => definition<W, N[number]>(name, next),
  };
}
