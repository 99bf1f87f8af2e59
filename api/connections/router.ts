/**
 * /dashboard/connection (application API, bearer): the merchant's own PSP connection. GET reads
 * it; POST registers it (owner, an idempotency key, a second factor when the user has one on);
 * POST /rotate replaces its secrets without downtime (owner, an idempotency key, a second factor:
 * as registering; the new ones are tested in the worker and used only once they pass);
 * POST /revoke ends it (owner, second factor); POST /test and POST /webhook ask the worker to call
 * the PSP (service.ts). Secrets come in the body only: no answer, log line or error carries one
 * (the request log has no bodies; validation messages name fields, never values).
 */
import { Router, type RequestHandler } from 'express';
import { signedIn } from '../identity/auth/bearer';
import { requireIdempotencyKey } from '../idempotency/header';
import type { IdempotencyService } from '../idempotency/idempotencyService';
import { respondIdempotently } from '../idempotency/respond';
import { consumeActionToken } from '../identity/twoFactor/actionTokens';
import { parseOrThrow } from '../validation/validate';
import { connectionActionBody, connectionQuery, registerConnectionBody, rotateConnectionBody } from './schema';
import type { ConnectionService } from './service';

export const CONNECTION_PATH = '/dashboard/connection';

export function connectionRouter(deps: {
  service: ConnectionService;
  idempotency: IdempotencyService;
  requireUser: RequestHandler;
}): Router {
  const { service, idempotency } = deps;
  const router = Router();
  router.use(deps.requireUser);
  router.get('/', async (req, res) => {
    const query = parseOrThrow(connectionQuery, req.query, 'query');
    res.json(await service.show(signedIn(req).user.id, query.merchantId));
  });
  // Where the merchant's Pix is received from now on: safe to retry, so a key is required (checked first).
  router.post('/', requireIdempotencyKey, async (req, res) => {
    const { user } = signedIn(req);
    const body = parseOrThrow(registerConnectionBody, req.body);
    // The role first: a key is never claimed for a merchant the caller may not act for. The state
    // (no active connection yet) is checked inside the claim, so a replay still answers its 201.
    await service.checkOwner(user.id, body.merchantId);
    await respondIdempotently(
      req,
      res,
      idempotency,
      // Only a SHA-256 fingerprint of the request is kept (to tell a replay from another body).
      { scope: `POST ${CONNECTION_PATH}`, merchantId: body.merchantId, request: body },
      async () => {
        // A refusal (4xx) frees the key; the state is checked before a second factor is spent.
        await service.checkCanRegister(user.id, body.merchantId);
        await consumeActionToken(req, user.id, 'psp-connection');
        return { status: 201, body: await service.register(body) };
      },
    );
  });
  // New secrets for the same connection, as registering takes them: a key (a retry must not
  // rotate twice), the owner checked before the key is claimed, the second factor spent last.
  router.post('/rotate', requireIdempotencyKey, async (req, res) => {
    const { user } = signedIn(req);
    const body = parseOrThrow(rotateConnectionBody, req.body);
    await service.checkOwner(user.id, body.merchantId);
    await respondIdempotently(
      req,
      res,
      idempotency,
      { scope: `POST ${CONNECTION_PATH}/rotate`, merchantId: body.merchantId, request: body },
      async () => {
        await service.checkCanRotate(user.id, body.merchantId);
        await consumeActionToken(req, user.id, 'psp-connection');
        return { status: 200, body: await service.rotate(body) };
      },
    );
  });
  router.post('/revoke', async (req, res) => {
    const { user } = signedIn(req);
    const body = parseOrThrow(connectionActionBody, req.body);
    // Checked before the second factor is spent: a viewer, or nothing to revoke, keeps its token.
    await service.checkCanRevoke(user.id, body.merchantId);
    await consumeActionToken(req, user.id, 'psp-connection');
    res.json(await service.revoke(body.merchantId));
  });
  router.post('/test', async (req, res) => {
    const body = parseOrThrow(connectionActionBody, req.body);
    res.json(await service.test(signedIn(req).user.id, body.merchantId));
  });
  router.post('/webhook', async (req, res) => {
    const body = parseOrThrow(connectionActionBody, req.body);
    res.json(await service.registerWebhook(signedIn(req).user.id, body.merchantId));
  });
  return router;
}
