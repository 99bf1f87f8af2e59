/**
 * POST /charges/{id}/refund (application API, bearer, mounted on /charges before the charge
 * routes): the caller's role on the charge's merchant → the body → the refund rules (refused
 * before any second factor is asked for) → the idempotency claim → the action token → the
 * refund workflow (service.ts). The charge is answered as it stands after the request.
 */
import { Router, type RequestHandler } from 'express';
import { signedIn } from '../identity/auth/bearer';
import { consumeActionToken } from '../identity/twoFactor/actionTokens';
import { readIdempotencyKey, requireIdempotencyKey } from '../idempotency/header';
import type { IdempotencyService } from '../idempotency/idempotencyService';
import { respondIdempotently } from '../idempotency/respond';
import { parseOrThrow } from '../validation/validate';
import { chargeIdParam } from '../charges/schema';
import { refundChargeBody } from './schema';
import { CHARGE_WRITERS, type AppChargeService } from '../charges/service';
import type { RefundService } from './service';
import { chargeStore } from '../../db/charges';

export interface RefundsRouterDeps {
  charges: AppChargeService;
  refunds: RefundService;
  idempotency: IdempotencyService;
  requireUser: RequestHandler;
}

export function refundsRouter(deps: RefundsRouterDeps): Router {
  const refund: RequestHandler = async (req, res) => {
    const { user } = signedIn(req);
    const id = parseOrThrow(chargeIdParam, req.params.id, 'charge id');
    // Another merchant's charge is 404 whatever the body: ownership first (only a missing
    // idempotency key is refused before, the same for every id).
    const charge = await deps.charges.ownedCharge(user.id, id, CHARGE_WRITERS);
    const body = parseOrThrow(refundChargeBody, req.body);
    const key = readIdempotencyKey(req)!; // present: requireIdempotencyKey (below)
    // An impossible refund is refused before any second factor is asked for or spent.
    deps.refunds.assertRefundable(charge, body.destination);
    await deps.refunds.assertMerchantMayRefund(charge.merchantId);
    await respondIdempotently(
      req,
      res,
      deps.idempotency,
      { scope: `POST /charges/${id}/refund`, merchantId: charge.merchantId, request: body },
      async (refundId, resuming) => {
        // A request that took the claim over (its holder stalled or died) answers the refund the
        // holder made, before the action token: the holder spent it, the retry presents it again.
        const made = resuming && (await deps.refunds.madeUnder(charge.id, refundId));
        // Inside the claim: a replay answers what the first call did without a second code.
        if (!made) {
          await consumeActionToken(req, user.id, 'refund');
          await deps.refunds.request(charge, refundId, body, key, user.id);
        }
        await chargeStore.reload(charge);
        return { status: 200, body: await deps.charges.view(charge) };
      },
    );
  };
  const router = Router();
  // Only this route's middleware: the charge routes mounted after it authenticate their own.
  router.post('/:id/refund', deps.requireUser, requireIdempotencyKey, refund);
  return router;
}
