/**
 * Dashboard routes under /dashboard, all behind the bearer token: GET /merchant/me,
 * POST /merchant/ensure, PATCH /merchant/branding (the checkout page's logo and colour); POST /credentials, GET /credentials?merchantId=, DELETE /credentials/:clientId;
 * and the figures (figures.ts): GET /summary, /metrics, /stats, /interactions, /revenue, /revenue-history, /transactions, /health.
 */
import { Router, type RequestHandler } from 'express';
import type { DashboardFigures } from './figures';
import { figuresHandlers } from './figuresHandler';
import { dashboardHandlers } from './handler';
import type { DashboardService } from './service';

export function dashboardRouter(deps: {
  dashboard: DashboardService;
  figures: DashboardFigures;
  requireUser: RequestHandler;
}): Router {
  const h = dashboardHandlers(deps.dashboard);
  const auth = deps.requireUser;
  const router = Router();
  router.get('/merchant/me', auth, h.myMerchant);
  router.post('/merchant/ensure', auth, h.ensureMerchant);
  router.patch('/merchant/branding', auth, h.updateBranding);
  router.post('/credentials', auth, h.createCredential);
  router.get('/credentials', auth, h.listCredentials);
  router.delete('/credentials/:clientId', auth, h.revokeCredential);
  const f = figuresHandlers(deps.figures);
  router.get('/summary', auth, f.summary);
  router.get('/metrics', auth, f.metrics);
  router.get('/stats', auth, f.stats);
  router.get('/interactions', auth, f.interactions);
  router.get('/revenue', auth, f.revenue);
  router.get('/revenue-history', auth, f.revenueHistory);
  router.get('/transactions', auth, f.transactions);
  router.get('/health', auth, f.health);
  return router;
}
