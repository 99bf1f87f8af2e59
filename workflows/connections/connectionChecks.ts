/**
 * The calls to a merchant's PSP that the application API asks for (the API process never calls a
 * PSP): each one activity, run once. A failed test is a result (ok: false, with its problems), not
 * a failure (so is a rotation whose new material failed its test); what fails is a connection
 * revoked meanwhile, material the worker cannot open, a webhook the PSP refused or a rotation
 * superseded by another, and those are not retried: the person who asked reads why and decides.
 * The API waits for the result a bounded time (the run's execution timeout, api/connections/service.ts).
 */
import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { ConnectionActivities } from '../../activities/connections';
import type {
  PspConnectionRotateInput,
  PspConnectionRotateResult,
  PspConnectionTestInput,
  PspConnectionTestResult,
  PspConnectionWebhookInput,
  PspConnectionWebhookResult,
} from './types';

const acts = proxyActivities<ConnectionActivities>({
  // Each PSP request has PROVIDER_TIMEOUT_MS; a test makes three, a registration two (and its retries).
  startToCloseTimeout: '45 seconds',
  retry: { maximumAttempts: 1 },
});

export async function pspConnectionTest(input: PspConnectionTestInput): Promise<PspConnectionTestResult> {
  return unwrapped(() => acts.testPspConnection(input));
}

export async function pspConnectionWebhook(input: PspConnectionWebhookInput): Promise<PspConnectionWebhookResult> {
  return unwrapped(() => acts.registerPspConnectionWebhook(input));
}

/** A rotation staged by the API: its new material tested, and promoted only if the test passed. */
export async function pspConnectionRotate(input: PspConnectionRotateInput): Promise<PspConnectionRotateResult> {
  return unwrapped(() => acts.rotatePspConnection(input));
}

/** The run fails with the activity's own ApplicationFailure (its type and our words), which the API answers by type. */
async function unwrapped<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure) throw err.cause;
    throw err;
  }
}
