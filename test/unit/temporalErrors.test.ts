/**
 * What the API answers when Temporal fails under a route (api/temporal/temporalErrors.ts): the
 * service unreachable (a ServiceError, or the gRPC status UNAVAILABLE = 14 as a plain error) is a
 * 503 envelope the caller can retry, never a 500; an update's or workflow's ApplicationFailure is
 * unwrapped once and answered from the domain's own table.
 */
import {
  ApplicationFailure,
  ServiceError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
} from '@temporalio/client';
import { RetryState } from '@temporalio/common';
import { ApiError } from '../../api/errors/apiError';
import { PayoutService, defaultPayoutSettings } from '../../api/payouts/service';
import { applicationFailureOf, isTemporalUnavailable, temporalErrorToApi } from '../../api/temporal/temporalErrors';
import { mapRequestError } from '../../api/withdrawals/service';
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
