/** The route walker the OpenAPI coverage test relies on: nested routers, prefixes, parameters. */
import express, { Router } from 'express';
import { listMountedRoutes, toOpenApiPath } from '../support/mountedRoutes';

const ok: express.RequestHandler = (_req, res) => {
  res.end();
};

describe('listMountedRoutes', () => {
  it('joins the prefixes of nested routers, mounted twice, and skips plain middleware', () => {
    const inner = Router();
    inner.post('/', ok);
    inner.get('/:id', ok);
    const outer = Router();
    outer.use((_req, _res, next) => next());
    outer.use('/pix', inner);
    const app = express();
    app.use(express.json());
    app.get('/healthz', ok);
    app.use('/sellers', outer);
    app.use('/rifeiro', (_req, _res, next) => next(), outer);
    app.use('/assets', (_req, res) => res.end());

    expect(listMountedRoutes(app)).toEqual([
      { method: 'GET', path: '/healthz' },
      { method: 'POST', path: '/rifeiro/pix' },
      { method: 'GET', path: '/rifeiro/pix/{id}' },
      { method: 'POST', path: '/sellers/pix' },
      { method: 'GET', path: '/sellers/pix/{id}' },
    ]);
  });

  it('refuses .all() routes, whose methods cannot be documented', () => {
    const app = express();
    app.all('/anything', ok);
    expect(() => listMountedRoutes(app)).toThrow(/\.all\(\)/);
  });
});

describe('toOpenApiPath', () => {
  it('turns :params into {params} and drops a trailing slash', () => {
    expect(toOpenApiPath('/sellers/saques/:id/')).toBe('/sellers/saques/{id}');
    expect(toOpenApiPath('/')).toBe('/');
  });

  it('refuses optional groups and wildcards instead of guessing', () => {
    expect(() => toOpenApiPath('/files/*rest')).toThrow();
    expect(() => toOpenApiPath('/a{/:b}')).toThrow();
  });
});
