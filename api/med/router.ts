/** /med/infractions (application API, bearer): Pix infractions (MED). See service.ts. */
import { Router, type Request, type RequestHandler } from 'express';
import { signedIn } from '../identity/auth/bearer';
import type { IdempotencyService } from '../idempotency/idempotencyService';
import { respondIdempotently } from '../idempotency/respond';
import { consumeActionToken } from '../identity/twoFactor/actionTokens';
import { parseOrThrow } from '../validation/validate';
import {
  analysisBody,
  bulkAnalysisBody,
  defenceBody,
  evidenceUploadBody,
  infractionIdParam,
  listInfractionsQuery,
  syncInfractionsBody,
} from './schema';
import type { Authorize, MedService } from './service';

export const MED_INFRACTIONS_PATH = '/med/infractions';

/** An ACCEPT sends money back: it needs the second factor like a refund (x-action-token, action "refund"), when the user has one. */
function secondFactorFor(req: Request, userId: string): Authorize {
  return async (decision) => {
    if (decision === 'ACCEPT') await consumeActionToken(req, userId, 'refund');
  };
}

export function medRouter(deps: {
  service: MedService;
  idempotency: IdempotencyService;
  requireUser: RequestHandler;
}): Router {
  const router = Router();
  router.use(deps.requireUser);
  router.get('/', async (req, res) => {
    const query = parseOrThrow(listInfractionsQuery, req.query, 'query');
    res.json(await deps.service.list(signedIn(req).user.id, query));
  });
  router.post('/sync', async (req, res) => {
    const body = parseOrThrow(syncInfractionsBody, req.body ?? {});
    res.json(await deps.service.sync(signedIn(req).user.id, body));
  });
  router.post('/analysis', async (req, res) => {
    const body = parseOrThrow(bulkAnalysisBody, req.body);
    const userId = signedIn(req).user.id;
    res.json(await deps.service.decideMany(userId, body, secondFactorFor(req, userId)));
  });
  router.get('/:id', async (req, res) => {
    const id = parseOrThrow(infractionIdParam, req.params.id, 'infraction id');
    res.json(await deps.service.read(signedIn(req).user.id, id));
  });
  router.get('/:id/timeline', async (req, res) => {
    const id = parseOrThrow(infractionIdParam, req.params.id, 'infraction id');
    res.json(await deps.service.timeline(signedIn(req).user.id, id));
  });
  router.post('/:id/evidence', async (req, res) => {
    const id = parseOrThrow(infractionIdParam, req.params.id, 'infraction id');
    const userId = signedIn(req).user.id;
    // Another merchant's infraction is 404, a split partner's 403, whatever the body says.
    await deps.service.owned(userId, id);
    const body = parseOrThrow(evidenceUploadBody, req.body);
    res.status(201).json(await deps.service.presignEvidence(userId, id, body));
  });
  router.post('/:id/defence', async (req, res) => {
    const id = parseOrThrow(infractionIdParam, req.params.id, 'infraction id');
    const userId = signedIn(req).user.id;
    await deps.service.owned(userId, id);
    const body = parseOrThrow(defenceBody, req.body);
    res.json(await deps.service.submitDefence(userId, id, body));
  });
  router.post('/:id/analysis', async (req, res) => {
    const id = parseOrThrow(infractionIdParam, req.params.id, 'infraction id');
    const userId = signedIn(req).user.id;
    // Another merchant's infraction is 404, a split partner's 403, whatever the body says.
    const { merchantId } = await deps.service.owned(userId, id);
    const body = parseOrThrow(analysisBody, req.body);
    // x-idempotency-key (optional): a retried request answers what the first one did instead of 409.
    await respondIdempotently(
      req,
      res,
      deps.idempotency,
      { scope: `POST /med/infractions/${id}/analysis`, merchantId, request: body },
      async (_resourceId, resuming) => ({
        status: 200,
        body:
          (resuming ? await deps.service.recordedDecision(userId, id, body) : null) ??
          (await deps.service.decide(userId, id, body, secondFactorFor(req, userId))),
      }),
    );
  });
  return router;
}
