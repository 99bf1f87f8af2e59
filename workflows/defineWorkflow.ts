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
 * has one definition.
 */
import type { QueryDefinition, SignalDefinition, UpdateDefinition, Workflow } from '@temporalio/common';

/** A message a workflow sets a handler for. */
export type WorkflowMessage =
  UpdateDefinition<any, any, any> | SignalDefinition<any, any> | QueryDefinition<any, any, any>;

declare const workflowFunction: unique symbol;

export interface WorkflowDefinition<W extends Workflow, M extends WorkflowMessage = never> {
  readonly type: 'workflow';
  /** The workflow type: the name of the function in workflows/index.ts. */
  readonly name: string;
  /** The updates, signals and queries the workflow handles. */
  readonly messages: readonly M[];
  /** Type only, never present at run time: the workflow function the arguments are checked against. */
  readonly [workflowFunction]?: W;
  /** The same definition, declaring the messages the workflow sets handlers for. */
  handles<const N extends readonly WorkflowMessage[]>(...messages: N): WorkflowDefinition<W, N[number]>;
}

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

/** The arguments and answers of a message, read from its definition. */
export type UpdateArgs<U> = U extends UpdateDefinition<any, infer A extends any[], any> ? A : never;
export type UpdateResult<U> = U extends UpdateDefinition<infer R, any, any> ? R : never;
export type SignalArgs<S> = S extends SignalDefinition<infer A extends any[], any> ? A : never;
export type QueryArgs<Q> = Q extends QueryDefinition<any, infer A extends any[], any> ? A : never;
export type QueryResult<Q> = Q extends QueryDefinition<infer R, any, any> ? R : never;
