/** OpenAPI for the dashboard's figures (router.ts), from the schemas that validate them. */
import { z } from 'zod';
import { errorResponses, jsonResponse, Pagination, registry, security } from '../openapi/registry';
import {
  healthView,
  interactionView,
  merchantQuery,
  metricsView,
  pageQuery,
  periodQuery,
  revenueView,
  statsView,
  summaryQuery,
  summaryView,
  transactionsQuery,
  transactionView,
} from './figuresSchema';

const tags = ['Dashboard'];
const errors = errorResponses(
  'AUTHENTICATION_REQUIRED',
  'INVALID_ACCESS_TOKEN',
  'RATE_LIMITED',
  'VALIDATION_ERROR',
  'MERCHANT_NOT_FOUND',
);
const common =
  ' Any member of the merchant; someone who is not a member gets 404 MERCHANT_NOT_FOUND. Amounts are integer cents; days are calendar days in America/Sao_Paulo.';

const Metrics = registry.register('DashboardMetrics', metricsView);
const Summary = registry.register('DashboardSummary', summaryView);
const Stats = registry.register('DashboardStats', statsView);
const Interaction = registry.register('DashboardInteraction', interactionView);
const Revenue = registry.register('DashboardRevenue', revenueView);
const Transaction = registry.register('DashboardTransaction', transactionView);
const Health = registry.register('DashboardHealth', healthView);

const routes: {
  path: string;
  operationId: string;
  summary: string;
  description: string;
  query: z.ZodType;
  answer: z.ZodType;
}[] = [
  {
    path: '/dashboard/metrics',
    operationId: 'getDashboardMetrics',
    summary: 'All-time sales figures of a merchant',
    description:
      'Exactly the nine fields below, all numbers. Sales are gross cents of PAID charges (what payers paid), before fees and refunds; refunds do not reduce them but count in refundedPayments.',
    query: merchantQuery,
    answer: Metrics,
  },
  {
    path: '/dashboard/summary',
    operationId: 'getDashboardSummary',
    summary: 'Totals of a period, by method, top payers and recent interactions',
    description:
      'Payments and refunds count on the day they happened; transactions and failures on the day the charge was created.',
    query: summaryQuery,
    answer: Summary,
  },
  {
    path: '/dashboard/stats',
    operationId: 'getDashboardStats',
    summary: 'Balance, charge counts and all-time amounts',
    description:
      'Balances are the ledger’s (source ledger); for a connected merchant (its money in its own PSP account) ' +
      'available is the account’s saldo as the worker last read it, with the reading beside it (source psp).',
    query: merchantQuery,
    answer: Stats,
  },
  {
    path: '/dashboard/interactions',
    operationId: 'listDashboardInteractions',
    summary: 'Charge and refund events, newest first',
    description:
      'charge.created, charge.paid, charge.expired, charge.canceled and one event per refund (refund.processing | succeeded | failed, by its current status). offset ≤ 10000.',
    query: pageQuery,
    answer: z.object({ data: z.array(Interaction), pagination: Pagination }),
  },
  {
    path: '/dashboard/revenue',
    operationId: 'getDashboardRevenue',
    summary: 'Daily revenue of the last 30 days, zero-filled',
    description: 'The last 30 days, today included, oldest first.',
    query: merchantQuery,
    answer: Revenue,
  },
  {
    path: '/dashboard/revenue-history',
    operationId: 'getDashboardRevenueHistory',
    summary: 'Daily revenue of a period, zero-filled',
    description: 'As /dashboard/revenue over 7, 30, 90 or 365 days.',
    query: periodQuery,
    answer: Revenue,
  },
  {
    path: '/dashboard/transactions',
    operationId: 'listDashboardTransactions',
    summary: 'The merchant’s charges, newest first, filterable',
    description:
      'Filters: status, method, created day range (from/to inclusive; `from` after `to` → 400 VALIDATION_ERROR naming `from`). offset ≤ 10000.',
    query: transactionsQuery,
    answer: z.object({ data: z.array(Transaction), pagination: Pagination }),
  },
  {
    path: '/dashboard/health',
    operationId: 'getDashboardHealth',
    summary: 'Integration health: webhook delivery success, failing endpoints, last provider callback',
    description: 'Over the last 24 hours of webhook deliveries to the merchant’s endpoints.',
    query: merchantQuery,
    answer: Health,
  },
];

for (const r of routes) {
  registry.registerPath({
    method: 'get',
    path: r.path,
    operationId: r.operationId,
    tags,
    summary: r.summary,
    description: r.description + common,
    security: security.bearer,
    request: { query: r.query as z.ZodObject },
    responses: { 200: jsonResponse('The figures.', r.answer), ...errors },
  });
}
