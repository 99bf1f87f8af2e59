/** OpenAPI for the dashboard routes (router.ts), from the schemas that validate them (schema.ts). */
import { z } from 'zod';
import { errorResponses, jsonResponse, Pagination, registry, security } from '../openapi/registry';
import {
  brandedMerchantView,
  brandingBody,
  clientIdParam,
  createCredentialBody,
  createdCredentialView,
  credentialView,
  ensuredMerchantView,
  ensureMerchantBody,
  listCredentialsQuery,
  merchantView,
  revokedCredentialView,
} from './schema';

/** Answered in front of every dashboard route (bearer authentication). */
const authErrors = ['AUTHENTICATION_REQUIRED', 'INVALID_ACCESS_TOKEN', 'RATE_LIMITED'] as const;
const tags = ['Dashboard'];

const DashboardMerchant = registry.register('DashboardMerchant', merchantView);
const EnsuredMerchant = registry.register('DashboardEnsuredMerchant', ensuredMerchantView);
const EnsureMerchantRequest = registry.register('EnsureMerchantRequest', ensureMerchantBody);
const CreateCredentialRequest = registry.register('CreateCredentialRequest', createCredentialBody);
const CreatedCredential = registry.register('CreatedCredential', createdCredentialView);
const Credential = registry.register('Credential', credentialView);

registry.registerPath({
  method: 'get',
  path: '/dashboard/merchant/me',
  operationId: 'getMyMerchant',
  tags,
  summary: 'The merchant the signed-in user owns (or first belongs to)',
  description:
    'The merchant the dashboard shows: the one the user owns, else the first they were added to. None yet → 404 MERCHANT_NOT_FOUND (POST /dashboard/merchant/ensure creates it).',
  security: security.bearer,
  responses: {
    200: jsonResponse('The merchant.', DashboardMerchant),
    ...errorResponses(...authErrors, 'MERCHANT_NOT_FOUND'),
  },
});

registry.registerPath({
  method: 'post',
  path: '/dashboard/merchant/ensure',
  operationId: 'ensureMerchant',
  tags,
  summary: 'Create the user’s merchant once; later calls answer it',
  description:
    'The first call creates a merchant with the user as owner (its e-mail is the user’s) and answers `created: true`. ' +
    'Every later call, concurrent ones included, answers that same merchant unchanged with `created: false`.',
  security: security.bearer,
  request: { body: { required: true, content: { 'application/json': { schema: EnsureMerchantRequest } } } },
  responses: {
    200: jsonResponse('The user’s merchant.', EnsuredMerchant),
    ...errorResponses(...authErrors, 'VALIDATION_ERROR'),
  },
});

const BrandingRequest = registry.register('MerchantBrandingRequest', brandingBody);
const BrandedMerchant = registry.register('DashboardBrandedMerchant', brandedMerchantView);

registry.registerPath({
  method: 'patch',
  path: '/dashboard/merchant/branding',
  operationId: 'updateMerchantBranding',
  tags,
  summary: 'Set the logo and colour of the hosted checkout page',
  description:
    'Owners and admins. A field left out is unchanged; null clears it. The page picks white or dark text on the colour, whichever contrasts more (WCAG AA).',
  security: security.bearer,
  request: { body: { required: true, content: { 'application/json': { schema: BrandingRequest } } } },
  responses: {
    200: jsonResponse('The merchant with its branding.', BrandedMerchant),
    ...errorResponses(...authErrors, 'VALIDATION_ERROR', 'INSUFFICIENT_ROLE', 'MERCHANT_NOT_FOUND'),
  },
});

registry.registerPath({
  method: 'post',
  path: '/dashboard/credentials',
  operationId: 'createCredential',
  tags,
  summary: 'Create an API credential for server-to-server calls',
  description:
    'Owners and admins only. The client secret is in this answer only. A user with a second factor must send ' +
    '`x-action-token` for "create-credential" (POST /auth/2fa/action/start and /confirm); it is used once.',
  security: security.bearer,
  request: {
    headers: z.object({
      'x-action-token': z.string().optional().describe('Required when the user has a second factor.'),
    }),
    body: { required: true, content: { 'application/json': { schema: CreateCredentialRequest } } },
  },
  responses: {
    201: jsonResponse('Created; store the secret now.', CreatedCredential),
    ...errorResponses(
      ...authErrors,
      'VALIDATION_ERROR',
      'SECOND_FACTOR_REQUIRED',
      'INSUFFICIENT_ROLE',
      'MERCHANT_NOT_FOUND',
    ),
  },
});

registry.registerPath({
  method: 'get',
  path: '/dashboard/credentials',
  operationId: 'listCredentials',
  tags,
  summary: 'List a merchant’s API credentials, newest first (never the secret)',
  description: 'Any member of the merchant. Someone who is not a member gets 404 MERCHANT_NOT_FOUND.',
  security: security.bearer,
  request: { query: listCredentialsQuery },
  responses: {
    200: jsonResponse('A page of credentials.', z.object({ data: z.array(Credential), pagination: Pagination })),
    ...errorResponses(...authErrors, 'VALIDATION_ERROR', 'MERCHANT_NOT_FOUND'),
  },
});

registry.registerPath({
  method: 'delete',
  path: '/dashboard/credentials/{clientId}',
  operationId: 'revokeCredential',
  tags,
  summary: 'Revoke an API credential',
  description:
    'Owners and admins. The credential is refused at once (401 INVALID_CREDENTIALS); revoking twice answers 200 again.',
  security: security.bearer,
  request: { params: z.object({ clientId: clientIdParam }) },
  responses: {
    200: jsonResponse('Revoked.', revokedCredentialView),
    ...errorResponses(...authErrors, 'VALIDATION_ERROR', 'INSUFFICIENT_ROLE', 'CREDENTIAL_NOT_FOUND'),
  },
});
