/** The 405 table read from an app's routes (api/middleware/methodNotAllowed.ts), on a small app of its own. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { Router } from 'express';
import { methodNotAllowed, routeMethods } from '../../api/middleware/methodNotAllowed';
import { errorHandler, notFoundHandler } from '../../api/errors/errorHandler';
import { createLogger } from '../../core/logger';

const ok: express.RequestHandler = (_req, res) => {
  res.json({ ok: true });
};

function sampleApp(): express.Express {
  const app = express();
  app.use((_req, res, next) => {
    res.locals.traceId = 'trace';
    next();
  });
  app.use(methodNotAllowed(app));
  const pix = Router();
  pix.post('/', ok);
  pix.get('/:id', ok);
  const sellers = Router();
  sellers.use((req, _res, next) => next()); // plain middleware: not a route
  sellers.use('/pix', pix);
  app.use('/sellers', sellers);
  app.use('/rifeiro', sellers);
  app.get('/sellers/pix', ok);
  app.put('/files/:name.txt', ok);
  app.all('/anything', ok);
  app.get('/wild/*rest', ok);
  app.use(notFoundHandler);
  app.use(errorHandler(createLogger('methodNotAllowed-test')));
  return app;
}

describe('routeMethods', () => {
  const methodsOf = routeMethods(sampleApp());
  const of = (path: string) => {
    const found = methodsOf(path);
    return found && [...found].sort();
  };

  it('joins the methods of every route of a path, through mounted routers, HEAD wherever GET is', () => {
    expect(of('/sellers/pix')).toEqual(['GET', 'HEAD', 'POST']);
    expect(of('/rifeiro/pix')).toEqual(['POST']);
    expect(of('/sellers/pix/123')).toEqual(['GET', 'HEAD']);
  });

  it('matches as Express does: any case, with or without a trailing slash, a parameter is one segment', () => {
    expect(of('/SELLERS/Pix/')).toEqual(['GET', 'HEAD', 'POST']);
    expect(of('/sellers/pix/123/')).toEqual(['GET', 'HEAD']);
    expect(of('/sellers/pix/1/2')).toBeUndefined();
    expect(of('/files/a.txt')).toEqual(['PUT']);
    expect(of('/files/aXtxt')).toBeUndefined(); // the dot is a dot
  });

  it('never judges an unknown path or a route it cannot read; an .all() route takes every method', () => {
    expect(of('/nowhere')).toBeUndefined();
    expect(of('/anything')).toEqual(expect.arrayContaining(['DELETE', 'GET', 'PATCH', 'POST', 'PUT']));
    expect(of('/wild')).toBeUndefined();
    expect(of('/wild/a/b')).toBeUndefined();
  });
});

describe('methodNotAllowed', () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer(sampleApp());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('answers 405 in the error envelope with Allow; an allowed method and an unknown path pass on', async () => {
    const res = await fetch(`${base}/sellers/pix`, { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(await res.json()).toEqual({
      error: {
        code: 'METHOD_NOT_ALLOWED',
        message: 'DELETE is not allowed on this path; it takes GET, HEAD, POST',
        details: { allow: ['GET', 'HEAD', 'POST'] },
        traceId: 'trace',
      },
    });
    expect((await fetch(`${base}/sellers/pix/9`, { method: 'GET' })).status).toBe(200);
    expect((await fetch(`${base}/sellers/pix/9`, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(`${base}/rifeiro/pix`, { method: 'GET' })).headers.get('allow')).toBe('POST');
    const unknown = await fetch(`${base}/nowhere`, { method: 'DELETE' });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('allow')).toBeNull();
  });

  it('leaves OPTIONS to Express', async () => {
    const res = await fetch(`${base}/sellers/pix/9`, { method: 'OPTIONS' });
    expect(res.status).toBe(200);
  });
});
