/**
 * Dashboard routes under /dashboard, all behind the bearer token: GET /merchant/me,
 * POST /merchant/ensure, PATCH /merchant/branding (the checkout page's logo and colour); POST /credentials, GET /credentials?merchantId=, DELETE /credentials/:clientId.
 */
import { Router, type RequestHandler } from 'express';
import { dashboardHandlers } from './handler';
import type { DashboardService } from './service';

export function dashboardRouter(deps: { dashboard: DashboardService; requireUser: RequestHandler }): Router {
  const h = dashboardHandlers(deps.dashboard);
  const auth = deps.requireUser;
  const router = Router();
  router.get('/merchant/me', auth, h.myMerchant);
  router.post('/merchant/ensure', auth, h.ensureMerchant);
  router.patch('/merchant/branding', auth, h.updateBranding);
  router.post('/credentials', auth, h.createCredential);
  router.get('/credentials', auth, h.listCredentials);
  router.delete('/credentials/:clientId', auth, h.revokeCredential);
  return router;
}
