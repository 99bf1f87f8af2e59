/**
 * A log line carries each field once. A request's lines come from the child logger the request
 * logger binds the traceId on; a line that adds the traceId again prints the key twice, which
 * JSON readers disagree about (most keep the last one, some refuse the line).
 */
import express from 'express';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { ConnectionRefusedError } from 'sequelize';
import { ApiError } from '../../api/errors/apiError';
import { errorHandler } from '../../api/errors/errorHandler';
import { requestLogger } from '../../api/middleware/requestLogger';
import { traceId } from '../../api/middleware/traceId';

/** The keys of every object in a JSON text, in order, duplicates included (JSON.parse would hide them). */
function duplicateKeys(json: string): string[] {
  const stack: Set<string>[] = [];
  const duplicates: string[] = [];
  let i = 0;
  while (i < json.length) {
    const c = json[i];
    if (c === '{') stack.push(new Set());
    else if (c === '}') stack.pop();
    else if (c === '"') {
      let end = i + 1;
      while (json[end] !== '"') end += json[end] === '\\' ? 2 : 1;
      const text = json.slice(i, end + 1);
      let next = end + 1;
      while (json[next] === ' ') next++;
      if (json[next] === ':' && stack.length > 0) {
        const key = JSON.parse(text) as string;
        if (stack[stack.length - 1].has(key)) duplicates.push(key);
        stack[stack.length - 1].add(key);
      }
      i = end;
    }
    i++;
  }
  return duplicates;
}

async function logLinesOf(route: express.RequestHandler): Promise<string[]> {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  const logger = pino({ level: 'info' }, sink);
  const app = express();
  app.use(traceId);
  app.use(requestLogger(logger));
  app.get('/x', route);
  app.use(errorHandler(logger));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  try {
    await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/x`);
    await new Promise((r) => setTimeout(r, 50));
  } finally {
    server.close();
  }
  return lines;
}

it.each<[string, express.RequestHandler]>([
  [
    'a 503 ApiError',
    () => {
      throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'the workflow service is unavailable; retry');
    },
  ],
  [
    'an unhandled error',
    () => {
      throw new Error('boom');
    },
  ],
  [
    'a lost database connection',
    () => {
      throw new ConnectionRefusedError(new Error('connect ECONNREFUSED'));
    },
  ],
])('the lines of a request that ends in %s carry each key once, the traceId included', async (_what, route) => {
  const lines = await logLinesOf(route);
  expect(lines.length).toBeGreaterThanOrEqual(2); // the error's line and the request's line
  for (const line of lines) {
    expect({ line, duplicates: duplicateKeys(line) }).toEqual({ line, duplicates: [] });
    expect(JSON.parse(line).traceId).toMatch(/^[0-9a-f-]{36}$/);
  }
});

it('the duplicate finder sees a repeated key', () => {
  expect(duplicateKeys('{"a":1,"traceId":"x","b":{"a":2},"traceId":"x"}')).toEqual(['traceId']);
});
