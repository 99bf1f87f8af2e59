/** OpenAPI for the session routes (router.ts) and the login second step (api/identity/twoFactor/router.ts). */
import { z } from 'zod';
import { errorResponses, jsonResponse, registry, security } from '../../openapi/registry';
import { csrfAnswer, loginAnswer, loginBody, messageAnswer, refreshAnswer, secondFactorChallenge } from './schema';

// Derived copies (.describe): the routers import schema.ts before the registry extends zod.
const LoginRequest = registry.register('LoginRequest', loginBody.describe('E-mail and password.'));
const LoginAnswer = registry.register(
  'LoginAnswer',
  loginAnswer.describe('Signed in: an access token, and the refresh token (also as the refresh_token cookie).'),
);
const SecondFactorChallenge = registry.register(
  'SecondFactorChallenge',
  secondFactorChallenge.describe(
    'The password was right and the account has a second factor: finish with POST /auth/login/second-factor.',
  ),
);
const RefreshAnswer = registry.register(
  'RefreshAnswer',
  refreshAnswer.describe('A new access token; the refresh_token cookie was replaced by the next one.'),
);
const CsrfAnswer = registry.register(
  'CsrfAnswer',
  csrfAnswer.describe('A CSRF token for the cookie-authenticated calls.'),
);
const MessageAnswer = registry.register('MessageAnswer', messageAnswer.describe('A success message.'));

const csrfHeader = z
  .string()
  .openapi({ description: 'The token from GET /auth/csrf (equal to the csrf_token cookie).' });
const refreshCookie = z
  .string()
  .openapi({ description: 'Set by login and refresh: HttpOnly, SameSite=Strict, path /auth.' });

registry.registerPath({
  method: 'get',
  path: '/auth/csrf',
  operationId: 'getCsrfToken',
  tags: ['Sessions'],
  summary: 'Get a CSRF token',
  description:
    'Answers a token and sets it as the `csrf_token` cookie. POST /auth/refresh and a cookie-authenticated POST /auth/logout need it in `x-csrf-token` (signed double submit). Bearer-only calls need none.',
  security: security.none,
  responses: { 200: jsonResponse('A CSRF token.', CsrfAnswer), ...errorResponses('RATE_LIMITED') },
});

registry.registerPath({
  method: 'post',
  path: '/auth/login',
  operationId: 'login',
  tags: ['Sessions'],
  summary: 'Log in with e-mail and password',
  description:
    'Unknown e-mail and wrong password answer the same 401 INVALID_LOGIN, in the same time. Failed logins count per account and per IP: ' +
    'after 5 failures for an account (30 for an IP) within 15 minutes, each further failure locks it for longer (30 s doubling, at most 15 minutes): 429 TOO_MANY_ATTEMPTS with Retry-After, even for the right password. ' +
    'With a second factor on, the answer is a challenge instead of tokens.',
  security: security.none,
  request: { body: { required: true, content: { 'application/json': { schema: LoginRequest } } } },
  responses: {
    200: jsonResponse(
      'Signed in (LoginAnswer), or a second factor is required (SecondFactorChallenge).',
      z.union([LoginAnswer, SecondFactorChallenge]),
    ),
    ...errorResponses('VALIDATION_ERROR', 'INVALID_LOGIN', 'TOO_MANY_ATTEMPTS', 'RATE_LIMITED'),
  },
});

registry.registerPath({
  method: 'post',
  path: '/auth/refresh',
  operationId: 'refreshSession',
  tags: ['Sessions'],
  summary: 'Renew the access token with the refresh cookie',
  description:
    'Uses the refresh_token cookie once and sets the next one (rotation). Presenting a token that was already used ends the whole session (401 REFRESH_TOKEN_REUSED): ' +
    'someone else may hold a copy. Two requests with the same token at once: the second gets 409 REFRESH_IN_PROGRESS. A session ends 30 days after its login whatever the refreshes.',
  security: security.none,
  request: { headers: z.object({ 'x-csrf-token': csrfHeader }), cookies: z.object({ refresh_token: refreshCookie }) },
  responses: {
    200: jsonResponse('A new access token.', RefreshAnswer),
    ...errorResponses(
      'REFRESH_TOKEN_MISSING',
      'REFRESH_TOKEN_INVALID',
      'REFRESH_TOKEN_REUSED',
      'CSRF_TOKEN_INVALID',
      'REFRESH_IN_PROGRESS',
      'SERVICE_UNAVAILABLE',
      'RATE_LIMITED',
    ),
  },
});

registry.registerPath({
  method: 'post',
  path: '/auth/logout',
  operationId: 'logout',
  tags: ['Sessions'],
  summary: 'End the session',
  description:
    'Ends the session of the refresh_token cookie (then `x-csrf-token` is required) or of the bearer token. Its access tokens stop working at once. Idempotent: answers 200 when there is nothing to end.',
  security: [...security.bearer, {}],
  request: {
    headers: z.object({
      'x-csrf-token': csrfHeader.optional().openapi({ description: 'Required when the refresh_token cookie is sent.' }),
    }),
  },
  responses: {
    200: jsonResponse('Logged out.', MessageAnswer),
    ...errorResponses('CSRF_TOKEN_INVALID', 'RATE_LIMITED'),
  },
});
