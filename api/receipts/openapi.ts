/** OpenAPI for GET /receipts/verify (router.ts), from the schemas of schema.ts. */
import { z } from 'zod';
import { errorResponses, registry, security } from '../openapi/registry';
import { authenticCertificate, authenticReceipt, notAuthentic, verifyQuery } from './schema';

const AuthenticReceipt = registry.register(
  'AuthenticReceipt',
  authenticReceipt.describe('The receipt is genuine; its key facts as our records hold them now.'),
);
const AuthenticCertificate = registry.register(
  'AuthenticCertificate',
  authenticCertificate.describe(
    'A course certificate we issued, its facts unchanged. `valid` is false (status REVOKED) once its enrolment was revoked by a full refund.',
  ),
);
const NotAuthenticReceipt = registry.register(
  'NotAuthenticReceipt',
  notAuthentic.describe('Forged, altered, unknown or malformed: no reason is given.'),
);

registry.registerPath({
  method: 'get',
  path: '/receipts/verify',
  operationId: 'verifyReceipt',
  tags: ['Receipts'],
  summary: 'Check a receipt (comprovante) or a course certificate is genuine',
  description:
    'Public: the URL in a receipt’s validation QR code. The code is opaque and signed; it names the document and a digest of its key facts (amount, date, endToEndId, masked parties). ' +
    'Answers 200 `{authentic: true, …}` when the code is ours and the document’s facts still match it, else 200 `{authentic: false}`, also for a missing or malformed code. ' +
    'Course certificates (GET /enrolments/{id}/certificate) carry codes of the same format: `{authentic: true, kind: "CERTIFICATE", valid, status, …}`; a certificate of a revoked enrolment is authentic but not valid. ' +
    'A client whose `Accept` prefers `text/html` (a browser) gets a small page saying the same.',
  security: security.none,
  request: { query: verifyQuery },
  responses: {
    200: {
      description: 'The verdict.',
      content: {
        'application/json': { schema: z.union([AuthenticReceipt, AuthenticCertificate, NotAuthenticReceipt]) },
        'text/html': {
          schema: z.string().describe('A page saying whether the receipt is authentic, with its key facts.'),
        },
      },
    },
    ...errorResponses('RATE_LIMITED'),
  },
});
