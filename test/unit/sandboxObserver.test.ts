/**
 * The sandbox's request observer (the PSP request audit's source): a request whose sender went
 * away before its body was read is not judged as a request sent without a body (a payout worker
 * SIGKILLed mid-send once failed the audit so: payoutWorkerCrash.test.ts).
 */
import type { Request, Response } from 'express';
import { observer, type ObservedApiRequest } from '../../sandbox/pixApi';

function request(socket: { readable: boolean; destroyed: boolean }, rawPixBody?: Buffer): Request {
  return { method: 'PUT', originalUrl: '/v3/gn/pix/abc', headers: {}, socket, rawPixBody } as unknown as Request;
}

function observed(req: Request): { seen: ObservedApiRequest[]; nextCalls: number } {
  const seen: ObservedApiRequest[] = [];
  let nextCalls = 0;
  observer((r) => seen.push(r))(req, {} as Response, () => void (nextCalls += 1));
  return { seen, nextCalls };
}

describe('observer', () => {
  it('hands on a request with its body', () => {
    const { seen, nextCalls } = observed(
      request({ readable: true, destroyed: false }, Buffer.from('{"valor":"1.00"}')),
    );
    expect(seen).toEqual([{ method: 'PUT', url: '/v3/gn/pix/abc', headers: {}, body: '{"valor":"1.00"}' }]);
    expect(nextCalls).toBe(1);
  });

  it('hands on a request without a body whose sender is still there', () => {
    const { seen } = observed(request({ readable: true, destroyed: false }));
    expect(seen).toEqual([{ method: 'PUT', url: '/v3/gn/pix/abc', headers: {} }]);
  });

  it('passes over a request whose sender went away before its body was read, and still calls next', () => {
    for (const socket of [
      { readable: false, destroyed: true },
      { readable: false, destroyed: false },
    ]) {
      const { seen, nextCalls } = observed(request(socket));
      expect(seen).toEqual([]);
      expect(nextCalls).toBe(1);
    }
  });
});
