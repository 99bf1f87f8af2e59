/** HTTP ↔ DashboardFigures: each route parses its query with its schema (figuresSchema.ts) first. */
import type { RequestHandler } from 'express';
import { signedIn } from '../identity/auth/bearer';
import { parseOrThrow } from '../validation/validate';
import type { DashboardFigures } from './figures';
import { merchantQuery, pageQuery, periodQuery, summaryQuery, transactionsQuery } from './figuresSchema';

type Name = 'metrics' | 'summary' | 'stats' | 'interactions' | 'revenue' | 'revenueHistory' | 'transactions' | 'health';

export function figuresHandlers(figures: DashboardFigures): Record<Name, RequestHandler> {
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
  };
}
