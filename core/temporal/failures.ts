/**
 * What a failed Temporal client call was, read the same way by everyone who calls Temporal: the
 * API's one mapping to HTTP answers (api/temporal/temporalErrors.ts) and the operations the API
 * and the worker both run (db/charges/issue.ts classifies a failed charge issue with these).
 */
import {
  ApplicationFailure,
  ServiceError,
  WorkflowFailedError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';

/** gRPC status UNAVAILABLE: no connection, or the server is shutting down. */
const GRPC_UNAVAILABLE = 14;
/**
 * gRPC status FAILED_PRECONDITION: on an update, Temporal's WorkflowNotReady. The server refuses
 * updates while the run's workflow task attempt is 3 or more, i.e. its last tasks failed or timed
 * out (server 1.29: service/history/api/updateworkflow/api.go, failUpdateWorkflowTaskAttemptCount).
 */
const GRPC_FAILED_PRECONDITION = 9;

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
