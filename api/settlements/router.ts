/** /settlements (application API, bearer): request one, list, read; the automatic schedule. See service.ts and schedule.ts. */
import { Router, type RequestHandler } from 'express';
import { signedIn } from '../identity/auth/bearer';
import { readIdempotencyKey, requireIdempotencyKey } from '../idempotency/header';
import type { IdempotencyService } from '../idempotency/idempotencyService';
import { respondIdempotently } from '../idempotency/respond';
import { consumeActionToken } from '../identity/twoFactor/actionTokens';
import { parseOrThrow } from '../validation/validate';
import type { SettlementScheduleService } from './schedule';
import {
  createSettlementBody,
  listSettlementsQuery,
  putScheduleBody,
  scheduleQuery,
  settlementIdParam,
} from './schema';
import { SETTLEMENT_ROLES, type SettlementService } from './service';
import { requireRole } from '../identity/auth/roles';

export const SETTLEMENTS_PATH = '/settlements';

export function settlementsRouter(deps: {
  service: SettlementService;
  schedules: SettlementScheduleService;
  idempotency: IdempotencyService;
  requireUser: RequestHandler;
}): Router {
  const { service, schedules, idempotency } = deps;
  const router = Router();
  router.use(deps.requireUser);
  // A settlement moves money: it must be safe to retry, so a key is required (checked first).
  router.post('/', requireIdempotencyKey, async (req, res) => {
    const { user } = signedIn(req);
    const body = parseOrThrow(createSettlementBody, req.body);
    const key = readIdempotencyKey(req)!; // present: requireIdempotencyKey
    // The role first: a key is never claimed for a merchant the caller may not settle for.
    await requireRole(user.id, body.merchantId, SETTLEMENT_ROLES);
    await respondIdempotently(
      req,
      res,
      idempotency,
      { scope: 'POST /settlements', merchantId: body.merchantId, request: body },
      async (settlementId, resuming) => {
        // A request that took the claim over (its holder stalled or died) answers the settlement
        // the holder made, before any gate: the holder spent the action token the retry presents.
        const made = resuming ? await service.find(settlementId) : null;
        if (made) return { status: 201, body: made };
        // Inside the claim, so a replay answers what the first call did (no second code, even if
        // the merchant was frozen since). A refusal (4xx) frees the key; the merchant's set-up is
        // checked before a second factor is spent.
        await service.precheck(body.merchantId);
        await consumeActionToken(req, user.id, 'settlement');
        return { status: 201, body: await service.create(user.id, body, settlementId, key) };
      },
    );
  });
  router.get('/', async (req, res) => {
    const query = parseOrThrow(listSettlementsQuery, req.query, 'query');
    res.json(await service.list(signedIn(req).user.id, query));
  });
  // Before /:id, so "schedule" is not read as a settlement id.
  router.get('/schedule', async (req, res) => {
    const query = parseOrThrow(scheduleQuery, req.query, 'query');
    res.json(await schedules.get(signedIn(req).user.id, query.merchantId));
  });
  router.put('/schedule', async (req, res) => {
    const body = parseOrThrow(putScheduleBody, req.body);
    res.json(await schedules.put(signedIn(req).user.id, body));
  });
  router.delete('/schedule', async (req, res) => {
    const query = parseOrThrow(scheduleQuery, req.query, 'query');
    await schedules.remove(signedIn(req).user.id, query.merchantId);
    res.status(204).end();
  });
  router.get('/:id', async (req, res) => {
    const id = parseOrThrow(settlementIdParam, req.params.id, 'settlement id');
    res.json(await service.read(signedIn(req).user.id, id));
  });
  return router;
}
