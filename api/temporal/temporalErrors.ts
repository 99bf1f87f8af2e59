/**
 * The one mapping of Temporal client errors to the API's error envelope. Every route that starts,
 * updates or signals a workflow answers its failures through here:
 * - the workflow service unreachable or refusing (a ServiceError, or gRPC UNAVAILABLE = code 14
 *   arriving as a plain error), or an update call that timed out before the update answered →
 *   503 SERVICE_UNAVAILABLE: the same request can be sent again (an idempotent route keeps its
 *   claim, so a retry with the same key resumes what may have started);
 * - the run not ready for an update (gRPC FAILED_PRECONDITION = code 9: its last workflow task
 *   failed or timed out, as after a worker, server or database crash, and no later one succeeded
 *   yet) → the same 503, with Retry-After: the run recovers by itself once a task succeeds;
 * - an update or workflow that failed → its ApplicationFailure, unwrapped once, answered from the
 *   domain's own table (ApplicationFailure.type → ApiError); any other failure (a type the table
 *   does not know, the run cancelled or terminated) → the domain's `otherFailure`, else unchanged;
 * - no such workflow (WorkflowNotFoundError) → the domain's `notFound`, else unchanged;
 * - anything else, an ApiError included, unchanged.
 */
import {
  ApplicationFailure,
  ServiceError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import { IDEMPOTENCY_KEY_BOUND } from '../../core/transfers/failures';
import { errors } from '../errors/apiError';

/** gRPC status UNAVAILABLE: no connection, or the server is shutting down. */
const GRPC_UNAVAILABLE = 14;
/**
 * gRPC status FAILED_PRECONDITION: on an update, Temporal's WorkflowNotReady. The server refuses
 * updates while the run's workflow task attempt is 3 or more, i.e. its last tasks failed or timed
 * out (server 1.29: service/history/api/updateworkflow/api.go, failUpdateWorkflowTaskAttemptCount).
 */
const GRPC_FAILED_PRECONDITION = 9;

/** When to try an update again that the run was not ready for: time for a workflow task retry or two. */
export const WORKFLOW_NOT_READY_RETRY_AFTER_SECONDS = 5;

/**
 * The gRPC status a Temporal call was refused with. The SDK throws the raw gRPC error, the code
 * on it, for an Update-with-Start (it unpacks the per-operation status), and wraps it in a
 * ServiceError (the code on its cause) for every other call.
 */
export function grpcStatusOf(err: unknown): number | undefined {
  const grpcError = (err instanceof ServiceError ? err.cause : err) as { code?: unknown } | undefined;
  return typeof grpcError?.code === 'number' ? grpcError.code : undefined;
}

/** The run exists but refuses updates until one of its workflow tasks succeeds again. */
export function isWorkflowNotReady(err: unknown): boolean {
  return grpcStatusOf(err) === GRPC_FAILED_PRECONDITION;
}

/** The workflow service could not be reached or refused the call; nothing happened on our side of it. */
export function isTemporalUnavailable(err: unknown): boolean {
  return (
    (err as { name?: unknown })?.name === 'ServiceError' ||
    (err as { code?: unknown })?.code === GRPC_UNAVAILABLE ||
    isWorkflowNotReady(err)
  );
}

/**
 * The call got no answer to act on: the service unavailable (or refusing for now), or an update
 * call that timed out before the update answered. A retry with the same idempotency key resumes.
 */
export function isTemporalUnanswered(err: unknown): boolean {
  return isTemporalUnavailable(err) || err instanceof WorkflowUpdateRPCTimeoutOrCancelledError;
}

/** An update or a workflow run that failed (as opposed to a call that never reached it). */
export function isWorkflowFailure(err: unknown): err is WorkflowUpdateFailedError | WorkflowFailedError {
  return err instanceof WorkflowUpdateFailedError || err instanceof WorkflowFailedError;
}

/** The ApplicationFailure an update or workflow failed with, if it failed with one. */
export function applicationFailureOf(err: unknown): ApplicationFailure | undefined {
  return isWorkflowFailure(err) && err.cause instanceof ApplicationFailure ? err.cause : undefined;
}

/**
 * The id of what a request's idempotency key already made, when its reservation was refused for
 * that (IDEMPOTENCY_KEY_BOUND): the route answers that resource, as a replay would.
 */
export function keyBoundTo(err: unknown): string | undefined {
  const failure = applicationFailureOf(err);
  if (failure?.type !== IDEMPOTENCY_KEY_BOUND) return undefined;
  const boundTo = (failure.details?.[0] as { boundTo?: unknown } | undefined)?.boundTo;
  return typeof boundTo === 'string' ? boundTo : undefined;
}

export interface TemporalErrorAnswers {
  /** The domain's table: ApplicationFailure.type → the API's answer. */
  failures?: Record<string, (failure: ApplicationFailure) => Error>;
  /** Any other failure of the update or workflow. Absent: the error is rethrown unchanged (a 500). */
  otherFailure?: () => Error;
  /** The workflow does not exist (not started yet, or closed and gone). Absent: rethrown unchanged. */
  notFound?: () => Error;
  /** The 503's message when the workflow service is unavailable (say whether to reuse the idempotency key). */
  unavailable: string;
}

/** What to throw for `err`: an API error from the domain's answers, or `err` itself. */
export function temporalErrorToApi(err: unknown, answers: TemporalErrorAnswers): unknown {
  if (isWorkflowFailure(err)) {
    const failure = applicationFailureOf(err);
    const answer = failure?.type ? answers.failures?.[failure.type] : undefined;
    if (failure && answer) return answer(failure);
    return answers.otherFailure ? answers.otherFailure() : err;
  }
  if (err instanceof WorkflowNotFoundError) return answers.notFound ? answers.notFound() : err;
  if (isWorkflowNotReady(err))
    return errors.unavailable(answers.unavailable, { retryAfterSeconds: WORKFLOW_NOT_READY_RETRY_AFTER_SECONDS }, err);
  if (isTemporalUnanswered(err)) return errors.unavailable(answers.unavailable);
  return err;
}
