/**
 * What the one error handler answers when the database refuses a statement for a moment, with
 * nothing done (the transaction rolled back): a deadlock broken by PostgreSQL (40P01) or a
 * serialization failure (40001) is a 503 SERVICE_UNAVAILABLE with Retry-After, the same request
 * to be sent again (an idempotent route with the same key), never a 500. The chaos load saw a
 * deadlock answered as a 500 on an idempotency key's claim.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import pino from 'pino';
import { DatabaseError } from 'sequelize';
import { errorHandler } from '../../api/errors/errorHandler';
import { traceId } from '../../api/middleware/traceId';

function databaseError(code: string, message: string): DatabaseError {
  const parent = Object.assign(new Error(message), { code, sql: 'INSERT …' });
  return new DatabaseError(parent as never);
}

async function answerTo(err: Error) {
  const lines: { level: number }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const app = express();
  app.use(traceId);
  app.post('/x', (_req, _res, next) => next(err));
  app.use(errorHandler(logger));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/x`, { method: 'POST' });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as any, lines };
  } finally {
    server.close();
  }
}

it.each([
  ['a deadlock', '40P01', 'deadlock detected'],
  ['a serialization failure', '40001', 'could not serialize access due to concurrent update'],
])('%s is a 503 to retry, with Retry-After, logged as a warning', async (_what, code, message) => {
  const answer = await answerTo(databaseError(code, message));
  expect(answer.status).toBe(503);
  expect(Number(answer.retryAfter)).toBeGreaterThan(0);
  expect(answer.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  expect(answer.body.error.message).not.toContain(message);
  expect(answer.lines.filter((l) => l.level >= 50)).toEqual([]);
});

it('any other database error stays a 500 (a bug to look at), without its detail in the answer', async () => {
  const answer = await answerTo(databaseError('42703', 'column "nope" does not exist'));
  expect(answer.status).toBe(500);
  expect(JSON.stringify(answer.body)).not.toContain('nope');
});
