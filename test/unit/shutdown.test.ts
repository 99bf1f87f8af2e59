/** core/shutdown.ts: the first SIGINT or SIGTERM stops the process, later ones only log. */
import { EventEmitter } from 'node:events';
import { stopOnSignals } from '../../core/shutdown';

function setUp(stop: () => void | Promise<void>) {
  const target = new EventEmitter();
  const lines: string[] = [];
  const failures: unknown[] = [];
  const logger = {
    info: (_obj: object, msg: string) => lines.push(msg),
    error: (_obj: object, msg: string) => lines.push(msg),
  };
  const dispose = stopOnSignals(stop, { logger, target, onStopFailed: (err) => failures.push(err) });
  return { target, lines, failures, dispose };
}

const settle = () => new Promise((r) => setImmediate(r));

it('stops once whatever signals arrive, and keeps handling them', async () => {
  let stops = 0;
  const { target, lines, failures } = setUp(() => {
    stops++;
    // As worker.shutdown() does when called again while draining.
    if (stops > 1) throw new Error('Not running. Current state: DRAINING');
  });
  target.emit('SIGINT');
  target.emit('SIGTERM');
  target.emit('SIGINT');
  await settle();
  expect({ stops, failures, lines }).toEqual({
    stops: 1,
    failures: [],
    lines: ['stopping', 'already stopping', 'already stopping'],
  });
  expect([target.listenerCount('SIGINT'), target.listenerCount('SIGTERM')]).toEqual([1, 1]);
});

it('hands a failed stop, thrown or rejected, to onStopFailed', async () => {
  const thrown = setUp(() => {
    throw new Error('boom');
  });
  thrown.target.emit('SIGTERM');
  const rejected = setUp(() => Promise.reject(new Error('later')));
  rejected.target.emit('SIGINT');
  await settle();
  expect([...thrown.failures, ...rejected.failures].map((e) => (e as Error).message)).toEqual(['boom', 'later']);
});

it('removes its handlers when disposed', () => {
  const { target, dispose } = setUp(() => undefined);
  dispose();
  expect([target.listenerCount('SIGINT'), target.listenerCount('SIGTERM')]).toEqual([0, 0]);
});
