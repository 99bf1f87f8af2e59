/**
 * One route-folder shape in api/, read from the source tree (docs/api/documenting-routes.md):
 * - a route folder holds `router.ts` (the route table and its handlers: parse, idempotency claim,
 *   call the service) beside `service.ts` (and `schema.ts`, `openapi.ts`); no `handler.ts` or
 *   `*Handler.ts` anywhere under api/;
 * - every folder with a router.ts has a service.ts, except the kernel and family folders named in
 *   NO_SERVICE with the reason each has none;
 * - routers are built in files named router.ts, except the few in OTHER_ROUTER_FILES.
 * An entry in either list that no longer applies fails too, so the lists only shrink.
 */
import fs from 'node:fs';
import path from 'node:path';

const API = path.resolve(__dirname, '../../api');

/** Folders under api/ with a router.ts and no service.ts: why each has none. */
const NO_SERVICE: Record<string, string> = {
  health: 'kernel: liveness and readiness probes read the database and Temporal directly',
  metrics: 'kernel: the Prometheus registry is its model',
  openapi: 'kernel: serves the document the other folders register',
  uploads: 'kernel: the local object store answers the uploads itself',
  'checkouts/page': 'kernel: server-rendered HTML over its own store.ts, public, before the JSON gate',
  'subscriptions/page': 'kernel: server-rendered HTML over db/subscriptions reads, public, before the JSON gate',
  'charges/callbacks':
    "the PSP's notification route: it parses and answers; routing the claim is db/charges/paymentClaims.ts, which the worker's sweep and reconciliation run too",
  'charges/pixApiCallbacks': 'a second door into the same claim routing (API Pix notifications)',
  sellers: 'family router: mounts the seller routes of charges/sellers, events/*, withdrawals',
  application: 'family router: builds the bearer sign-in once and mounts the application routes',
};

/** Files that build a Router and are not a router.ts: why. */
const OTHER_ROUTER_FILES: Record<string, string> = {
  'identity/avatar/index.ts': 'avatar routes plus the local uploads, as one unit mounted before the JSON body parser',
};

/** Named after Express's error-handling middleware, not a route's handlers. */
const NOT_ROUTE_HANDLERS = new Set(['errors/errorHandler.ts']);

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(full);
    return entry.name.endsWith('.ts') ? [path.relative(API, full).split(path.sep).join('/')] : [];
  });
}

const files = filesUnder(API);
const routeFolders = files.filter((f) => path.posix.basename(f) === 'router.ts').map((f) => path.posix.dirname(f));

describe('api/ route folders', () => {
  it('keep their handlers in router.ts: no handler.ts or *Handler.ts', () => {
    const handlerFiles = files.filter((f) => /(^|\/)(handler|\w+Handler)\.ts$/.test(f) && !NOT_ROUTE_HANDLERS.has(f));
    expect(handlerFiles).toEqual([]);
    for (const f of NOT_ROUTE_HANDLERS) expect(files).toContain(f);
  });

  it('have a service.ts beside router.ts, outside the named kernel and family folders', () => {
    const withoutService = routeFolders.filter((d) => !files.includes(`${d}/service.ts`)).sort();
    expect(withoutService).toEqual(Object.keys(NO_SERVICE).sort());
  });

  it('build their routers in router.ts, outside the named few', () => {
    const builders = files.filter(
      (f) => path.posix.basename(f) !== 'router.ts' && /\bRouter\(/.test(fs.readFileSync(path.join(API, f), 'utf8')),
    );
    expect(builders.sort()).toEqual(Object.keys(OTHER_ROUTER_FILES).sort());
  });
});
