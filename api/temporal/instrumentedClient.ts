/**
 * The one place the API's Temporal calls are counted: a Client on the caller's connection, with
 * the caller's namespace and data converter, plus a workflow-client interceptor that counts every
 * failed start, update, signal, query, describe, cancel and terminate by operation and error
 * class (ServiceError: the service is unreachable or refused; WorkflowNotFoundError,
 * WorkflowExecutionAlreadyStartedError: business outcomes the callers handle, e.g. the join in
 * updateWithStart.ts — counted too, the `error` label tells them apart). Error messages are never
 * labels (they can carry workflow ids). The failure is rethrown unchanged.
 */
import { Client, type WorkflowClientInterceptor } from '@temporalio/client';
import type { ApiMetrics } from '../metrics/registry';

const OPERATIONS = [
  'start',
  'startWithDetails',
  'startUpdate',
  'startUpdateWithStart',
  'signal',
  'signalWithStart',
  'query',
  'terminate',
  'cancel',
  'describe',
] as const;

export function temporalErrorCounter(metrics: ApiMetrics): WorkflowClientInterceptor {
  const interceptor: Record<string, unknown> = {};
  for (const operation of OPERATIONS) {
    interceptor[operation] = async (input: unknown, next: (input: unknown) => Promise<unknown>) => {
      try {
        return await next(input);
      } catch (err) {
        metrics.temporalClientErrors.inc({ operation, error: errorClass(err) });
        throw err;
      }
    };
  }
  return interceptor as WorkflowClientInterceptor;
}

/** A bounded label: the error's class name when it is a plain identifier, else `Error`. */
function errorClass(err: unknown): string {
  const name = (err as { name?: unknown })?.name;
  return typeof name === 'string' && /^[A-Za-z]{1,64}$/.test(name) ? name : 'Error';
}

/** The caller's client again (same connection, namespace, converter, interceptors) with the counter added. */
export function instrumentedClient(client: Client, metrics: ApiMetrics): Client {
  const existing = client.options.interceptors?.workflow;
  const workflow = [...(Array.isArray(existing) ? existing : []), temporalErrorCounter(metrics)];
  return new Client({
    connection: client.connection,
    namespace: client.options.namespace,
    identity: client.options.identity,
    dataConverter: client.options.dataConverter,
    interceptors: { ...client.options.interceptors, workflow },
  });
}
