/** OpenAPI for GET /receipts/verify (verify.ts), from the schemas of schema.ts. */
import { z } from 'zod';
import { errorResponses, registry, security } from '../openapi/registry';
import { authenticReceipt, notAuthentic, verifyQuery } from './schema';

const AuthenticReceipt = registry.register('AuthenticReceipt', authenticReceipt.describe('The receipt is genuine; its key facts as our records hold them now.'));
const NotAuthenticReceipt = registry.register('NotAuthenticReceipt', notAuthentic.describe('Forged, altered, unknown or malformed: no reason is given.'));

registry.registerPath({
  method: 'get',
  path: '/receipts/verify',
  operationId: 'verifyReceipt',
  tags: ['Receipts'],
  summary: 'Check a receipt (comprovante) is genuine',
  description:
    'Public: the URL in a receipt’s validation QR code. The code is opaque and signed; it names the document and a digest of its key facts (amount, date, endToEndId, masked parties). ' +
    'Answers 200 `{authentic: true, …}` when the code is ours and the document’s facts still match it, else 200 `{authentic: false}`, also for a missing or malformed code. ' +
    'A client whose `Accept` prefers `text/html` (a browser) gets a small page saying the same.',
  security: security.none,
  request: { query: verifyQuery },
  responses: {
    200: {
      description: 'The verdict.',
      content: {
        'application/json': { schema: z.union([AuthenticReceipt, NotAuthenticReceipt]) },
        'text/html': { schema: z.string().describe('A page saying whether the receipt is authentic, with its key facts.') },
      },
    },
    ...errorResponses('RATE_LIMITED'),
  },
});
