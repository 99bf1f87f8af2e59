/**
 * Starts, signals, updates, queries and schedule actions, by workflow definition (made by
 * workflows/defineWorkflow.ts, typed in ./definition.ts): the arguments are checked against the
 * workflow function's parameters, a message must be one the workflow declares it handles, and the
 * workflow type's name is the one its definition holds. The API, activities, workers and db/'s
 * shared operations reach Temporal workflows through these and updateWithStartOrJoin
 * (./updateWithStart.ts, beside this file), never by a type name of their own.
 */
import {
  WorkflowNotFoundError,
  type Client,
  type ScheduleOptionsStartWorkflowAction,
  type WorkflowClient,
  type WorkflowHandle,
  type WorkflowHandleWithStartDetails,
  type WorkflowStartOptions,
} from '@temporalio/client';
import type { Workflow, WorkflowResultType } from '@temporalio/common';
import type {
  QueryArgs,
  QueryResult,
  SignalArgs,
  UpdateArgs,
  UpdateResult,
  WorkflowDefinition,
  WorkflowMessage,
} from './definition';

/** A Client or its `workflow` part (activities and shared start routines are handed either). */
export type WorkflowsOf = Client | WorkflowClient;

function workflowsOf(client: WorkflowsOf): WorkflowClient {
  return 'workflow' in client ? client.workflow : client;
}

/** Starts a run; fails with WorkflowExecutionAlreadyStartedError as the SDK does. */
export function startWorkflow<W extends Workflow, M extends WorkflowMessage>(
  client: WorkflowsOf,
  workflow: WorkflowDefinition<W, M>,
  options: WorkflowStartOptions<W>,
): Promise<WorkflowHandleWithStartDetails<W>> {
  return workflowsOf(client).start<W>(workflow.name, options);
}

/** True while the run of `workflowId` runs (it owns its money then); false once it ended or never existed. */
export async function workflowRunning(client: WorkflowsOf, workflowId: string): Promise<boolean> {
  try {
    return (await workflowsOf(client).getHandle(workflowId).describe()).status.name === 'RUNNING';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** Starts a run and waits for its result. */
export function executeWorkflow<W extends Workflow, M extends WorkflowMessage>(
  client: WorkflowsOf,
  workflow: WorkflowDefinition<W, M>,
  options: WorkflowStartOptions<W>,
): Promise<WorkflowResultType<W>> {
  return workflowsOf(client).execute<W>(workflow.name, options);
}

/** A running workflow of a known type: only the messages its definition declares can be sent. */
export interface TypedWorkflowHandle<W extends Workflow, M extends WorkflowMessage> {
  readonly workflowId: string;
  signal<S extends Extract<M, { type: 'signal' }>>(signal: S, ...args: SignalArgs<S>): Promise<void>;
  executeUpdate<U extends Extract<M, { type: 'update' }>>(update: U, ...args: UpdateArgs<U>): Promise<UpdateResult<U>>;
  query<Q extends Extract<M, { type: 'query' }>>(query: Q, ...args: QueryArgs<Q>): Promise<QueryResult<Q>>;
  /** The SDK's handle, for what is not a message (describe, result, history). */
  readonly temporal: WorkflowHandle<W>;
}

export function workflowHandle<W extends Workflow, M extends WorkflowMessage>(
  client: WorkflowsOf,
  _workflow: WorkflowDefinition<W, M>,
  workflowId: string,
): TypedWorkflowHandle<W, M> {
  const handle = workflowsOf(client).getHandle<W>(workflowId);
  // The signatures above check the messages and their arguments; the SDK's handle takes any.
  const typed: TypedWorkflowHandle<Workflow, WorkflowMessage> = {
    workflowId,
    signal: (signal, ...args: unknown[]) => handle.signal(signal, ...args),
    executeUpdate: (update, ...args: unknown[]) => handle.executeUpdate(update, { args }),
    query: (query, ...args: unknown[]) => handle.query(query, ...args),
    temporal: handle,
  };
  return typed as TypedWorkflowHandle<W, M>;
}

/** A Schedule's action: start a run of `workflow` with these options. */
export function scheduleAction<W extends Workflow, M extends WorkflowMessage>(
  workflow: WorkflowDefinition<W, M>,
  action: Omit<ScheduleOptionsStartWorkflowAction<W>, 'type' | 'workflowType'>,
): ScheduleOptionsStartWorkflowAction<W> {
  return { type: 'startWorkflow', workflowType: workflow.name, ...action } as ScheduleOptionsStartWorkflowAction<W>;
}
