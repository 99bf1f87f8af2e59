/**
 * What the API answers when Temporal fails under a route (api/temporal/temporalErrors.ts): the
 * service unreachable (a ServiceError, or the gRPC status UNAVAILABLE = 14 as a plain error) is a
 * 503 envelope the caller can retry, never a 500; an update's or workflow's ApplicationFailure is
 * unwrapped once and answered from the domain's own table.
 */
import express from 'express';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import {
  ApplicationFailure,
  Client,
  ServiceError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import { RetryState } from '@temporalio/common';
import { google, temporal } from '@temporalio/proto';
import { issueCharge } from '../../api/charges/issueCharge';
import { issueFailureOf } from '../../db/charges';
import { ApiError } from '../../api/errors/apiError';
import { errorHandler } from '../../api/errors/errorHandler';
import { traceId } from '../../api/middleware/traceId';
import { updateWithStartOrJoin } from '../../core/temporal/updateWithStart';
import { cancelChargeUpdate, chargeLifecycleWorkflow, issueChargeUpdate } from '../../workflows/charges/definitions';
import { PayoutService, defaultPayoutSettings } from '../../api/payouts/service';
import { applicationFailureOf, isTemporalUnavailable } from '../../core/temporal/failures';
import { temporalErrorToApi } from '../../api/temporal/temporalErrors';
import { mapRequestError } from '../../api/withdrawals/errors';
import { PayoutFailureTypes } from '../../workflows/payouts/types';

/** A client whose Update-With-Start fails with `err`, as the API's Temporal client would. */
function failingClient(err: unknown): Client {
  const fail = async () => {
    throw err;
  };
  return { workflow: { executeUpdateWithStart: fail, getHandle: () => ({ executeUpdate: fail }) } } as never;
}

/** gRPC's UNAVAILABLE as it reaches the client when no connection could be made (not wrapped in a ServiceError). */
const grpcUnavailable = () =>
  Object.assign(new Error('14 UNAVAILABLE: No connection established'), { code: 14, details: 'No connection' });

function payoutReserve(err: unknown): Promise<unknown> {
  const service = new PayoutService({
    sequelize: null as never,
    temporal: failingClient(err),
    taskQueue: 'q',
    settings: defaultPayoutSettings,
  });
  // The reservation step of POST /v1/payouts/batches, after the batch is staged.
  const reserve = (service as unknown as { reserve(m: string, b: string, n: number): Promise<unknown> }).reserve;
  return reserve.call(service, 'merchant-1', 'batch-1', 3).catch((e: unknown) => e);
}

describe('payout batches: reserving when Temporal fails', () => {
  it('gRPC UNAVAILABLE (code 14) is a 503 to retry with the same idempotencyKey, not a 500', async () => {
    const answer = await payoutReserve(grpcUnavailable());
    expect(answer).toBeInstanceOf(ApiError);
    expect(answer).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
  });

  it('a ServiceError is the same 503', async () => {
    const answer = await payoutReserve(new ServiceError('unreachable'));
    expect(answer).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
  });

  it("the update's ApplicationFailure is answered from the payout table", async () => {
    const refused = new WorkflowUpdateFailedError(
      'update failed',
      ApplicationFailure.create({ type: PayoutFailureTypes.insufficientBalance, message: 'no funds' }),
    );
    expect(await payoutReserve(refused)).toMatchObject({ status: 400, code: 'INSUFFICIENT_AVAILABLE_BALANCE' });
  });
});

describe('the one mapping (temporalErrorToApi)', () => {
  const teapot = () => new ApiError(418, 'TEAPOT', 'from the table');
  const other = () => new ApiError(409, 'OTHER', 'another failure');
  const answers = { failures: { Known: teapot }, otherFailure: other, unavailable: 'retry later' };
  const updateFailed = (cause?: Error) => new WorkflowUpdateFailedError('update failed', cause);

  it('unwraps the ApplicationFailure of a failed update or run once and answers from the table', () => {
    const known = ApplicationFailure.create({ type: 'Known', message: 'x' });
    expect(temporalErrorToApi(updateFailed(known), answers)).toMatchObject({ status: 418 });
    expect(
      temporalErrorToApi(new WorkflowFailedError('run failed', known, RetryState.NON_RETRYABLE_FAILURE), answers),
    ).toMatchObject({ status: 418 });
    expect(applicationFailureOf(updateFailed(known))).toBe(known);
  });

  it('a type the table does not know, or no ApplicationFailure at all: otherFailure, else the error unchanged', () => {
    const unknown = updateFailed(ApplicationFailure.create({ type: 'Unknown', message: 'x' }));
    expect(temporalErrorToApi(unknown, answers)).toMatchObject({ status: 409 });
    expect(temporalErrorToApi(updateFailed(new Error('terminated')), answers)).toMatchObject({ status: 409 });
    expect(temporalErrorToApi(unknown, { unavailable: 'retry later' })).toBe(unknown);
  });

  it.each([
    ['a ServiceError', new ServiceError('unreachable')],
    ['gRPC UNAVAILABLE as a plain error', grpcUnavailable()],
    ['an update call that timed out', new WorkflowUpdateRPCTimeoutOrCancelledError('timed out')],
  ])('%s is a 503 with the domain message', (_what, err) => {
    const answer = temporalErrorToApi(err, answers);
    expect(answer).toBeInstanceOf(ApiError);
    expect(answer).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', message: 'retry later' });
  });

  it('no such workflow: notFound when the domain gives one, else unchanged; an ApiError or a bug: unchanged', () => {
    const missing = new WorkflowNotFoundError('gone', 'wf-1', undefined);
    expect(temporalErrorToApi(missing, { ...answers, notFound: teapot })).toMatchObject({ status: 418 });
    expect(temporalErrorToApi(missing, answers)).toBe(missing);
    const api = new ApiError(404, 'NOT_FOUND', 'x');
    expect(temporalErrorToApi(api, answers)).toBe(api);
    const bug = new TypeError('x is undefined');
    expect(temporalErrorToApi(bug, answers)).toBe(bug);
    expect(isTemporalUnavailable(bug)).toBe(false);
  });

  it('withdrawals and settlements (mapRequestError) answer gRPC UNAVAILABLE with the same 503', () => {
    expect(mapRequestError(grpcUnavailable())).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
  });
});

const GRPC_ABORTED = 10;
const GRPC_FAILED_PRECONDITION = 9;
const anyOf = (typeName: string, value: Uint8Array) => ({ type_url: `type.googleapis.com/${typeName}`, value });

const REFUSED_UPDATE_MESSAGE = 'Unable to perform workflow execution update due to Workflow Task in failed state.';
const workflowNotReady = () =>
  anyOf(
    'temporal.api.errordetails.v1.WorkflowNotReadyFailure',
    temporal.api.errordetails.v1.WorkflowNotReadyFailure.encode({}).finish(),
  );

/** A gRPC error as @grpc/grpc-js delivers it: code, details, and the status proto in the metadata. */
function grpcError(code: number, name: string, message: string, details: ReturnType<typeof anyOf>[]): Error {
  const status = google.rpc.Status.encode({ code, message, details }).finish();
  const metadata = { get: (key: string) => (key === 'grpc-status-details-bin' ? [Buffer.from(status)] : []) };
  return Object.assign(new Error(`${code} ${name}: ${message}`), { code, details: message, metadata });
}

/**
 * The server's refusal of an update while the run's last workflow task failed or timed out
 * (attempt >= 3), as Temporal 1.29.1 sends it: history refuses the update with WorkflowNotReady,
 * FAILED_PRECONDITION (service/history/api/updateworkflow/api.go:126-136). An Update-with-Start
 * gets it inside a MultiOperationExecution status whose code is the update's, the start marked
 * aborted (service/history/api/multioperation/api.go:323, service/frontend/workflow_handler.go:570);
 * the SDK unpacks that one and throws the raw gRPC error, where a plain update's is wrapped in a
 * ServiceError.
 */
function workflowTaskFailedRefusal(call: 'updateWithStart' | 'update'): Error {
  if (call === 'update')
    return grpcError(GRPC_FAILED_PRECONDITION, 'FAILED_PRECONDITION', REFUSED_UPDATE_MESSAGE, [workflowNotReady()]);
  const operations = temporal.api.errordetails.v1.MultiOperationExecutionFailure.encode({
    statuses: [
      {
        code: GRPC_ABORTED,
        message: 'Operation was aborted.',
        details: [
          anyOf(
            'temporal.api.failure.v1.MultiOperationExecutionAborted',
            temporal.api.failure.v1.MultiOperationExecutionAborted.encode({}).finish(),
          ),
        ],
      },
      { code: GRPC_FAILED_PRECONDITION, message: REFUSED_UPDATE_MESSAGE, details: [workflowNotReady()] },
    ],
  }).finish();
  return grpcError(GRPC_FAILED_PRECONDITION, 'FAILED_PRECONDITION', 'Update-with-Start could not be executed.', [
    anyOf('temporal.api.errordetails.v1.MultiOperationExecutionFailure', operations),
  ]);
}

/** A real SDK client whose service refuses every update and Update-with-Start so. */
function refusingClient(): Client {
  const workflowService = {
    executeMultiOperation: () => Promise.reject(workflowTaskFailedRefusal('updateWithStart')),
    updateWorkflowExecution: () => Promise.reject(workflowTaskFailedRefusal('update')),
  };
  return new Client({ connection: { workflowService } as never });
}

const chargeInput = {
  chargeId: 'charge-1',
  merchantId: 'merchant-1',
  amountCents: 1000,
  feeCents: 10,
  description: null,
  externalRef: null,
  metadata: null,
  splits: [],
  expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
  idempotencyKey: 'key-1',
  webhook: null,
};

/** What the SDK throws for an Update-with-Start of a charge, or a plain update of one, that the server refuses so. */
function refusal(call: 'updateWithStart' | 'update'): Promise<unknown> {
  const client = refusingClient();
  const attempt =
    call === 'update'
      ? client.workflow.getHandle('charge-charge-1').executeUpdate(cancelChargeUpdate, { args: [{ reason: 'x' }] })
      : updateWithStartOrJoin(client, chargeLifecycleWorkflow, issueChargeUpdate, {
          workflowId: 'charge-charge-1',
          taskQueue: 'q',
          args: [chargeInput],
          merchantId: 'merchant-1',
          initialStatus: 'ISSUING',
        });
  return attempt.then(
    () => undefined,
    (err: unknown) => err,
  );
}

describe("an update refused while the run's workflow task is failing (gRPC FAILED_PRECONDITION)", () => {
  const answers = { unavailable: 'retry with the same idempotency key' };
  const retryable = {
    status: 503,
    code: 'SERVICE_UNAVAILABLE',
    message: 'retry with the same idempotency key',
    details: { retryAfterSeconds: expect.any(Number) },
  };

  it('the raw gRPC error of an Update-with-Start is a 503 with a Retry-After, not a 500', async () => {
    const refused = await refusal('updateWithStart');
    // The shape the chaos run logged: not a ServiceError, the gRPC code on the error itself.
    expect(refused).toMatchObject({ name: 'Error', code: GRPC_FAILED_PRECONDITION });
    expect(temporalErrorToApi(refused, answers)).toMatchObject(retryable);
  });

  it('the ServiceError wrapping it on a plain update is the same 503 with a Retry-After', async () => {
    const refused = await refusal('update');
    expect(refused).toBeInstanceOf(ServiceError);
    expect(temporalErrorToApi(refused, answers)).toMatchObject(retryable);
  });

  it('a failed update carrying no gRPC status stays a workflow failure', () => {
    const failed = new WorkflowUpdateFailedError('update failed', ApplicationFailure.create({ type: 'Known' }));
    expect(temporalErrorToApi(failed, { ...answers, otherFailure: () => new ApiError(409, 'X', 'x') })).toMatchObject({
      status: 409,
    });
  });

  it('POST /sellers/pix (issueCharge) answers it as a 503 envelope with Retry-After, logged as a warning', async () => {
    const lines: { level: number }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const app = express();
    app.use(traceId);
    app.post('/sellers/pix', (_req, _res, next) => {
      const client = refusingClient();
      issueCharge({ temporal: client, taskQueue: 'q' }, chargeInput).catch(next);
    });
    app.use(errorHandler(logger));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/sellers/pix`, {
        method: 'POST',
      });
      const body = (await res.json()) as { error: Record<string, unknown> };
      expect(res.status).toBe(503);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', traceId: res.headers.get('x-trace-id') });
      expect(body.error.message).toContain('retry with the same idempotency key');
      expect(lines.filter((l) => l.level >= 50)).toEqual([]);
      // One warning, naming what Temporal refused with.
      expect(lines.filter((l) => l.level === 40)).toEqual([
        expect.objectContaining({ code: 'SERVICE_UNAVAILABLE', cause: expect.objectContaining({ code: 9 }) }),
      ]);
    } finally {
      server.close();
    }
  });
});

describe('a charge issue whose update call timed out before the update answered', () => {
  it('is the workflow service unavailable (a 503 to retry with the same key), not an unknown error (a 500)', () => {
    const failure = issueFailureOf(new WorkflowUpdateRPCTimeoutOrCancelledError('timed out'));
    expect(failure).toMatchObject({ transient: true, code: 'WORKFLOW_SERVICE_UNAVAILABLE' });
  });
});
