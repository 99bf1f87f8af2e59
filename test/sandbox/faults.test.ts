import { HttpPixProvider } from '../../activities/provider/httpPixProvider';
import { ProviderError } from '../../core/provider';
import { API_KEY, chargeRequest, startSandbox, transferRequest, type SandboxHarness } from './harness';

async function providerError(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => new Error('expected a rejection'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

// Two tests wait out a 2 s client timeout on purpose.
jest.setTimeout(120_000);

describe('sandbox fault injection', () => {
  let h: SandboxHarness;
  // A client timeout far above an ordinary call's time, even on a loaded 2-core machine (300 ms
  // failed plain calls there); faults that must outlast it are far longer still.
  beforeEach(async () => {
    h = await startSandbox({ faultHangMs: 10_000 }, 2_000);
  });
  afterEach(() => h.close());

  it('sets, reads and resets faults; POST replaces the whole config', async () => {
    expect((await h.call('GET', '/sandbox/faults')).json).toEqual({
      errorRate: 0,
      latencyMs: 0,
      timeoutRate: 0,
      failFirst: 0,
      dropFirst: 0,
      seed: null,
    });
    expect((await h.call('POST', '/sandbox/faults', { errorRate: 0.5, latencyMs: 10 })).json).toEqual({
      errorRate: 0.5,
      latencyMs: 10,
      timeoutRate: 0,
      failFirst: 0,
      dropFirst: 0,
      seed: null,
    });
    expect((await h.call('POST', '/sandbox/faults', { timeoutRate: 0.1, failFirst: 0 })).json).toEqual({
      errorRate: 0,
      latencyMs: 0,
      timeoutRate: 0.1,
      failFirst: 0,
      dropFirst: 0,
      seed: null,
    });
    expect((await h.call('DELETE', '/sandbox/faults')).json).toEqual({
      errorRate: 0,
      latencyMs: 0,
      timeoutRate: 0,
      failFirst: 0,
      dropFirst: 0,
      seed: null,
    });
    expect((await h.call('POST', '/sandbox/faults', { errorRate: 2 })).status).toBe(400);
    expect((await h.call('POST', '/sandbox/faults', { bogus: 1 })).status).toBe(400);
    expect((await h.call('POST', '/sandbox/faults', { errorRate: 0.5, seed: -1 })).status).toBe(400);
  });

  it('a seed makes the random draws a schedule: the same seed, the same faults, call after call', async () => {
    const schedule = async (seed: number) => {
      await h.call('POST', '/sandbox/faults', { errorRate: 0.5, seed });
      const outcomes: number[] = [];
      for (let i = 0; i < 24; i++) outcomes.push((await h.call('GET', '/v1/transfers?reference=none')).status);
      return outcomes;
    };
    const first = await schedule(20261125);
    // No API key: a call the faults let through is refused by the key check (401), the others are 503s.
    expect(new Set(first)).toEqual(new Set([401, 503]));
    expect(await schedule(20261125)).toEqual(first);
    expect(await schedule(7)).not.toEqual(first);
  });

  it('errorRate 1 → every /v1 call is a 503 → transient PROVIDER_UNAVAILABLE, and nothing is created', async () => {
    await h.call('POST', '/sandbox/faults', { errorRate: 1 });
    const req = chargeRequest();
    const err = await providerError(h.provider.issueCharge(req));
    expect(err).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', transient: true, httpStatus: 503 });
    expect(await providerError(h.provider.getTransferByReference('x'))).toMatchObject({ transient: true });
    expect(h.sandbox.state.charges.size).toBe(0);

    // Control routes are never faulted, so the fault can always be turned off.
    expect((await h.call('GET', '/sandbox/transfers')).status).toBe(200);
    expect((await h.call('GET', '/health')).status).toBe(200);
    await h.call('DELETE', '/sandbox/faults');
    expect((await h.provider.issueCharge(req)).status).toBe('ACTIVE');
  });

  it('failFirst n → the first n identical calls are 503s unprocessed, the next one goes through', async () => {
    await h.call('POST', '/sandbox/faults', { failFirst: 2 });
    const req = transferRequest();
    expect(await providerError(h.provider.transfer(req))).toMatchObject({ transient: true, httpStatus: 503 });
    expect(await providerError(h.provider.transfer(req))).toMatchObject({ transient: true, httpStatus: 503 });
    expect(h.sandbox.state.transfers.size).toBe(0);
    // Another call (another URL) has its own count; the third identical call is processed.
    expect(await providerError(h.provider.getTransferByReference(req.reference))).toMatchObject({ transient: true });
    expect((await h.provider.transfer(req)).reference).toBe(req.reference);
    expect(h.sandbox.state.transfers.size).toBe(1);
    // A new fault config starts counting again.
    await h.call('POST', '/sandbox/faults', { failFirst: 1 });
    expect(await providerError(h.provider.getTransferByReference(req.reference))).toMatchObject({ transient: true });
    expect((await h.provider.getTransferByReference(req.reference))?.reference).toBe(req.reference);
  });

  it('dropFirst n → the first n identical calls are processed but their answers lost; paths limits the faults to those paths', async () => {
    await h.call('POST', '/sandbox/faults', { dropFirst: 1, paths: ['/v1/transfers'] });
    const req = transferRequest();
    // The transfer is made, its answer lost: the client cannot tell.
    expect(await providerError(h.provider.transfer(req))).toMatchObject({ transient: true });
    expect(h.sandbox.state.transfers.size).toBe(1);
    // Another path meets no fault; the same call again is answered (the replay of the first).
    expect(await h.provider.findChargeByReference('none')).toBeNull();
    expect((await h.provider.transfer(req)).reference).toBe(req.reference);
    expect(h.sandbox.state.transfers.size).toBe(1);
    expect((await h.call('POST', '/sandbox/faults', { paths: ['no-slash'] })).status).toBe(400);
  });

  it('latency beyond the client timeout → transient PROVIDER_TIMEOUT', async () => {
    await h.call('POST', '/sandbox/faults', { latencyMs: 10_000 });
    const started = Date.now();
    const err = await providerError(h.provider.findChargeByReference('any'));
    expect(err).toMatchObject({ code: 'PROVIDER_TIMEOUT', transient: true, httpStatus: null });
    // The client gave up at its own 2 s, not when the provider would have answered (10 s).
    expect(Date.now() - started).toBeLessThan(9_000);

    // Latency under the timeout only slows things down.
    await h.call('POST', '/sandbox/faults', { latencyMs: 50 });
    expect(await h.provider.getTransferByReference('none')).toBeNull();
  });

  it('timeoutRate 1 → the call is processed but never answered; a retry with the same key replays it', async () => {
    await h.call('POST', '/sandbox/faults', { timeoutRate: 1 });
    const req = transferRequest();
    const err = await providerError(h.provider.transfer(req));
    expect(err).toMatchObject({ code: 'PROVIDER_TIMEOUT', transient: true });

    await h.call('DELETE', '/sandbox/faults');
    const transfer = await h.provider.transfer(req);
    expect(transfer.status).toBe('COMPLETED');
    const stats = (await h.call('GET', '/sandbox/transfers')).json.references[req.reference];
    expect(stats).toEqual({ requests: 2, created: 1 }); // paid exactly once
  });

  it('maps a refused connection to transient PROVIDER_UNAVAILABLE', async () => {
    const url = h.url;
    await h.close();
    const provider = new HttpPixProvider({ baseUrl: url, apiKey: API_KEY, timeoutMs: 1_000 });
    const err = await providerError(provider.getCharge('sbx_ch_x'));
    expect(err).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', transient: true, httpStatus: null });
    h = await startSandbox(); // so afterEach has something to close
  });
});
