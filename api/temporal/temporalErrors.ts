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
 * What an error was (unavailable, not ready, a failed run) is read by core/temporal/failures.ts,
 * which the operations both the API and the worker run (db/) read too; the HTTP answer is here.
 */
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/client';
import { IDEMPOTENCY_KEY_BOUND } from '../../core/transfers/failures';
import {
  applicationFailureOf,
  isTemporalUnanswered,
  isWorkflowFailure,
  isWorkflowNotReady,
} from '../../core/temporal/failures';
import { errors } from '../errors/apiError';

/** When to try an update again that the run was not ready for: time for a workflow task retry or two. */
export const WORKFLOW_NOT_READY_RETRY_AFTER_SECONDS = 5;

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
