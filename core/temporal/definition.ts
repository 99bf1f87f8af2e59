/**
 * What a workflow definition is, as a type (workflows/defineWorkflow.ts makes them): the workflow
 * type's name, the function its arguments are checked against, and the updates, signals and
 * queries it handles. Here, below every layer, so the Temporal helpers beside it (workflows.ts,
 * updateWithStart.ts) and workflow code read the same types without core/ importing workflows/.
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

/** The arguments and answers of a message, read from its definition. */
export type UpdateArgs<U> = U extends UpdateDefinition<any, infer A extends any[], any> ? A : never;
export type UpdateResult<U> = U extends UpdateDefinition<infer R, any, any> ? R : never;
export type SignalArgs<S> = S extends SignalDefinition<infer A extends any[], any> ? A : never;
export type QueryArgs<Q> = Q extends QueryDefinition<any, infer A extends any[], any> ? A : never;
export type QueryResult<Q> = Q extends QueryDefinition<infer R, any, any> ? R : never;
