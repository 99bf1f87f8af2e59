/** OpenAPI for GET /dashboard/balance/lines (balanceLines.ts), from the schemas that validate it. */
import { errorResponses, jsonResponse, registry, security } from '../openapi/registry';
import { balanceLinesQuery, balanceLinesView, MAX_BALANCE_LINES } from './balanceLinesSchema';

const BalanceLines = registry.register(
  'DashboardBalanceLines',
  balanceLinesView.describe('A page of the ledger lines that explain the merchant’s balances.'),
);

registry.registerPath({
  method: 'get',
  path: '/dashboard/balance/lines',
  operationId: 'listDashboardBalanceLines',
  tags: ['Dashboard'],
  summary: 'The merchant’s balances explained line by line',
  description:
    'Every ledger line (posting) that moved the merchant’s available, reserved, blocked or owed account, newest first, ' +
    'with the movement’s kind and reference and the account’s balance after it; `balances` are the accounts now, ' +
    'in the same snapshot, so each account’s lines over every page sum to its balance. Cursor pagination: ' +
    `pass pagination.nextCursor as \`cursor\` for older lines (limit 1–${MAX_BALANCE_LINES}, default 20). ` +
    'The ledger’s figures (a connected merchant’s ledger mirrors its own PSP account). ' +
    'Any member of the merchant; someone who is not a member gets 404 MERCHANT_NOT_FOUND.',
  security: security.bearer,
  request: { query: balanceLinesQuery },
  responses: {
    200: jsonResponse('The balances and a page of lines.', BalanceLines),
    ...errorResponses(
      'AUTHENTICATION_REQUIRED',
      'INVALID_ACCESS_TOKEN',
      'RATE_LIMITED',
      'VALIDATION_ERROR',
      'MERCHANT_NOT_FOUND',
    ),
  },
});
