/**
 * Child workflows started from workflow code, by definition (workflows/defineWorkflow.ts): the
 * arguments are checked against the child's function, and the type name is the one its
 * definition holds. The same commands as a start by type name, so histories replay
 * unchanged.
 */
import { executeChild, type ChildWorkflowOptions } from '@temporalio/workflow';
import type { WithWorkflowArgs, Workflow, WorkflowResultType } from '@temporalio/common';
import type { WorkflowDefinition, WorkflowMessage } from '../core/temporal/definition';

export function executeChildOf<W extends Workflow, M extends WorkflowMessage>(
  workflow: WorkflowDefinition<W, M>,
  options: WithWorkflowArgs<W, ChildWorkflowOptions>,
): Promise<WorkflowResultType<W>> {
  return executeChild<W>(workflow.name, options);
}
