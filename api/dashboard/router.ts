/**
 * Dashboard routes under /dashboard, all behind the bearer token: GET /merchant/me,
 * POST /merchant/ensure, PATCH /merchant/branding (the checkout page's logo and colour); POST /credentials, GET /credentials?merchantId=, DELETE /credentials/:clientId;
 * and the figures (figures.ts): GET /summary, /metrics, /stats, /interactions, /revenue, /revenue-history, /transactions, /health;
 * GET /balance/lines: the balances explained line by line (balanceLines.ts).
 * Each figures route parses its query with its schema (figuresSchema.ts) first.
 */
import { Router, type RequestHandler } from 'express';
import { signedIn } from '../identity/auth/bearer';
import { consumeActionToken } from '../identity/twoFactor/actionTokens';
import { parseOrThrow } from '../validation/validate';
import type { DashboardFigures } from './figures';
import { balanceLinesQuery } from './balanceLinesSchema';
import { merchantQuery, pageQuery, periodQuery, summaryQuery, transactionsQuery } from './figuresSchema';
import { brandingBody, clientIdParam, createCredentialBody, ensureMerchantBody, listCredentialsQuery } from './schema';
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
  router.get('/balance/lines', auth, f.balanceLines);
  return router;
}

function dashboardHandlers(
  dashboard: DashboardService,
): Record<
  'ensureMerchant' | 'myMerchant' | 'updateBranding' | 'createCredential' | 'listCredentials' | 'revokeCredential',
  RequestHandler
> {
  return {
    ensureMerchant: async (req, res) => {
      const body = parseOrThrow(ensureMerchantBody, req.body);
      res.json(await dashboard.ensureMerchant(signedIn(req).user, body));
    },
    myMerchant: async (req, res) => {
      res.json(await dashboard.myMerchant(signedIn(req).user.id));
    },
    updateBranding: async (req, res) => {
      const body = parseOrThrow(brandingBody, req.body);
      res.json(await dashboard.updateBranding(signedIn(req).user.id, body));
    },
    createCredential: async (req, res) => {
      const { user } = signedIn(req);
      const body = parseOrThrow(createCredentialBody, req.body);
      // The role first: a viewer is told 403 without spending their action token.
      await dashboard.checkCanCreateCredential(user.id, body.merchantId);
      await consumeActionToken(req, user.id, 'create-credential');
      const issued = await dashboard.createCredential(user.id, body);
      res.status(201).json({ ...issued, createdAt: issued.createdAt.toISOString() });
    },
    listCredentials: async (req, res) => {
      const query = parseOrThrow(listCredentialsQuery, req.query, 'query');
      res.json(await dashboard.listCredentials(signedIn(req).user.id, query));
    },
    revokeCredential: async (req, res) => {
      const clientId = parseOrThrow(clientIdParam, req.params.clientId, 'client id');
      res.json(await dashboard.revokeCredential(signedIn(req).user.id, clientId));
    },
  };
}

type Name =
  | 'metrics'
  | 'summary'
  | 'stats'
  | 'interactions'
  | 'revenue'
  | 'revenueHistory'
  | 'transactions'
  | 'health'
  | 'balanceLines';

function figuresHandlers(figures: DashboardFigures): Record<Name, RequestHandler> {
  const user = (req: Parameters<RequestHandler>[0]) => signedIn(req).user.id;
  return {
    metrics: async (req, res) => {
      const q = parseOrThrow(merchantQuery, req.query, 'query');
      res.json(await figures.metrics(user(req), q.merchantId));
    },
    summary: async (req, res) => {
      res.json(await figures.summary(user(req), parseOrThrow(summaryQuery, req.query, 'query')));
    },
    stats: async (req, res) => {
      const q = parseOrThrow(merchantQuery, req.query, 'query');
      res.json(await figures.stats(user(req), q.merchantId));
    },
    interactions: async (req, res) => {
      res.json(await figures.interactions(user(req), parseOrThrow(pageQuery, req.query, 'query')));
    },
    revenue: async (req, res) => {
      const q = parseOrThrow(merchantQuery, req.query, 'query');
      res.json(await figures.revenue(user(req), q.merchantId, '30d'));
    },
    revenueHistory: async (req, res) => {
      const q = parseOrThrow(periodQuery, req.query, 'query');
      res.json(await figures.revenue(user(req), q.merchantId, q.period));
    },
    transactions: async (req, res) => {
      res.json(await figures.transactions(user(req), parseOrThrow(transactionsQuery, req.query, 'query')));
    },
    health: async (req, res) => {
      const q = parseOrThrow(merchantQuery, req.query, 'query');
      res.json(await figures.health(user(req), q.merchantId));
    },
    balanceLines: async (req, res) => {
      res.json(await figures.balanceLines(user(req), parseOrThrow(balanceLinesQuery, req.query, 'query')));
    },
  };
}
