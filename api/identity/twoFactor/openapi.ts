/** OpenAPI for the second-factor routes (router.ts), from the schemas that validate them (schema.ts). */
import { z } from 'zod';
import { errorResponses, jsonResponse, registry, security } from '../../openapi/registry';
import {
  actionConfirmBody,
  actionEmailBody,
  actionStartAnswer,
  actionStartBody,
  actionTokenAnswer,
  codeBody,
  codeSentAnswer,
  enabledAnswer,
  loginEmailBody,
  loginMethodsAnswer,
  loginSecondFactorBody,
  statusAnswer,
  totpSetupAnswer,
} from './schema';

// Derived copies (.describe): the routers import schema.ts before the registry extends zod.
const reg = <T extends z.ZodType>(name: string, schema: T, what: string) =>
  registry.register(name, schema.describe(what));
const CodeRequest = reg('SecondFactorCodeRequest', codeBody, 'A 6-digit code.');
const LoginSecondFactorRequest = reg(
  'LoginSecondFactorRequest',
  loginSecondFactorBody,
  'The login challenge and a TOTP, e-mail or recovery code.',
);
const LoginEmailRequest = reg('LoginEmailRequest', loginEmailBody, 'The login challenge to send an e-mail code for.');
const ActionStartRequest = reg('ActionStartRequest', actionStartBody, 'The sensitive action to open.');
const ActionEmailRequest = reg(
  'ActionEmailRequest',
  actionEmailBody,
  'The action challenge to send an e-mail code for.',
);
const ActionConfirmRequest = reg('ActionConfirmRequest', actionConfirmBody, 'The action challenge and a code.');
const Status = reg('SecondFactorStatus', statusAnswer, 'Which second factors are on.');
const TotpSetup = reg(
  'TotpSetup',
  totpSetupAnswer,
  'Scan the QR code (or type the secret) in an authenticator app, then confirm with a code.',
);
const Enabled = reg('SecondFactorEnabled', enabledAnswer, 'The factor is on.');
const CodeSent = reg('CodeSent', codeSentAnswer, 'A code was e-mailed.');
const LoginMethods = reg('LoginSecondFactorMethods', loginMethodsAnswer, 'How this login can be finished.');
const ActionStart = reg('ActionChallenge', actionStartAnswer, 'An open action challenge.');
const ActionToken = reg('ActionToken', actionTokenAnswer, 'Proof of a second factor for one action.');
const LoginAnswer = z.object({
  message: z.string(),
  accessToken: z.string(),
  refreshToken: z.string(),
  expiresIn: z.number().int(),
});

const bearerErrors = ['AUTHENTICATION_REQUIRED', 'INVALID_ACCESS_TOKEN', 'RATE_LIMITED'] as const;
const codeErrors = ['VALIDATION_ERROR', 'INVALID_SECOND_FACTOR_CODE', 'TOO_MANY_ATTEMPTS'] as const;
const body = (schema: z.ZodType) => ({ body: { required: true, content: { 'application/json': { schema } } } });
const manageTokenHeader = z.object({
  'x-action-token': z.string().optional().openapi({
    description:
      'From POST /auth/2fa/action/confirm for the action "manage-2fa"; required when the user already has a second factor on (the first factor needs none). Setup checks it, confirm uses it.',
  }),
});
const addFactorRule =
  'With a second factor already on, this needs `x-action-token` for "manage-2fa" (403 SECOND_FACTOR_REQUIRED without it): a signed-in session alone cannot add a factor.';
const noticeRule =
  'The account is told by e-mail (what happened and when, never a code or token); when that e-mail cannot be queued nothing is changed (503 SERVICE_UNAVAILABLE).';

const path = (
  method: 'get' | 'post',
  p: string,
  operationId: string,
  summary: string,
  extra: Record<string, unknown>,
) =>
  registry.registerPath({
    method,
    path: p,
    operationId,
    tags: ['Two-factor authentication'],
    summary,
    ...(extra as object),
    responses: extra.responses as never,
  });

path('get', '/auth/2fa/status', 'getSecondFactorStatus', 'Which second factors are on', {
  description: 'Whether TOTP and e-mail codes are on for the signed-in user, and how many recovery codes are left.',
  security: security.bearer,
  responses: { 200: jsonResponse('Status.', Status), ...errorResponses(...bearerErrors) },
});
path('post', '/auth/2fa/totp/setup', 'setupTotp', 'Start TOTP setup', {
  description: `Answers a new seed (as an otpauth URL, a QR PNG and base32 text). It becomes active only when POST /auth/2fa/totp/confirm gets a code made from it. ${addFactorRule}`,
  security: security.bearer,
  request: { headers: manageTokenHeader },
  responses: {
    200: jsonResponse('The seed to add to an authenticator app.', TotpSetup),
    ...errorResponses('SECOND_FACTOR_ALREADY_ENABLED', 'SECOND_FACTOR_REQUIRED', ...bearerErrors),
  },
});
path('post', '/auth/2fa/totp/confirm', 'confirmTotp', 'Turn TOTP on with a first code', {
  description: `When this is the first factor turned on, the answer carries 10 single-use recovery codes, shown only this once. ${addFactorRule} A wrong code does not use the token. ${noticeRule}`,
  security: security.bearer,
  request: { headers: manageTokenHeader, ...body(CodeRequest) },
  responses: {
    200: jsonResponse('TOTP is on.', Enabled),
    ...errorResponses(
      ...codeErrors,
      'SECOND_FACTOR_ALREADY_ENABLED',
      'SECOND_FACTOR_NOT_PENDING',
      'SECOND_FACTOR_REQUIRED',
      'SERVICE_UNAVAILABLE',
      ...bearerErrors,
    ),
  },
});
path('post', '/auth/2fa/email/setup', 'setupEmailCodes', 'Start e-mail codes setup', {
  description: `E-mails a 6-digit code, valid 10 minutes. ${addFactorRule}`,
  security: security.bearer,
  request: { headers: manageTokenHeader },
  responses: {
    200: jsonResponse('A code was sent.', CodeSent),
    ...errorResponses(
      'SECOND_FACTOR_ALREADY_ENABLED',
      'SECOND_FACTOR_REQUIRED',
      'SERVICE_UNAVAILABLE',
      ...bearerErrors,
    ),
  },
});
path('post', '/auth/2fa/email/confirm', 'confirmEmailCodes', 'Turn e-mail codes on with the code sent', {
  description: `The setup dies after 5 wrong codes (409 SECOND_FACTOR_NOT_PENDING: start it again); wrong codes also lock the user for growing periods (429). ${addFactorRule} A wrong code does not use the token. ${noticeRule}`,
  security: security.bearer,
  request: { headers: manageTokenHeader, ...body(CodeRequest) },
  responses: {
    200: jsonResponse('E-mail codes are on.', Enabled),
    ...errorResponses(
      ...codeErrors,
      'SECOND_FACTOR_ALREADY_ENABLED',
      'SECOND_FACTOR_NOT_PENDING',
      'SECOND_FACTOR_REQUIRED',
      'SERVICE_UNAVAILABLE',
      ...bearerErrors,
    ),
  },
});
path('get', '/auth/login/second-factor', 'getLoginSecondFactorMethods', 'How a login challenge can be finished', {
  description:
    'For the challenge token answered by POST /auth/login when a second factor is on: the methods that can finish it and when it expires. Send the token in `x-challenge-token` (or `challengeToken` in the query); an unknown, finished or expired challenge → 401 INVALID_CHALLENGE.',
  security: security.none,
  request: {
    headers: z.object({
      'x-challenge-token': z
        .string()
        .optional()
        .openapi({ description: 'The login challenge token (preferred: keeps it out of URLs).' }),
    }),
    query: z.object({
      challengeToken: z
        .string()
        .max(200)
        .optional()
        .openapi({ description: 'The login challenge token, when the header cannot be used.' }),
    }),
  },
  responses: {
    200: jsonResponse('The methods.', LoginMethods),
    ...errorResponses('INVALID_CHALLENGE', 'RATE_LIMITED'),
  },
});
path('post', '/auth/login/second-factor', 'completeLoginSecondFactor', 'Finish a login with a second-factor code', {
  description:
    'A TOTP code, an e-mail code or a recovery code. Answers like POST /auth/login. A challenge lives 10 minutes and dies after 5 wrong codes; wrong codes also lock the user for growing periods (429). ' +
    `A recovery code used is announced to the account by e-mail. ${noticeRule}`,
  security: security.none,
  request: body(LoginSecondFactorRequest),
  responses: {
    200: jsonResponse('Signed in.', LoginAnswer),
    ...errorResponses(...codeErrors, 'INVALID_CHALLENGE', 'SERVICE_UNAVAILABLE', 'RATE_LIMITED'),
  },
});
path('post', '/auth/login/second-factor/email', 'sendLoginEmailCode', 'E-mail a code for a login challenge', {
  description:
    'Sends a one-time code to the account’s e-mail for this login challenge (only when e-mail codes are on for the user; else 409 SECOND_FACTOR_NOT_PENDING); finish with POST /auth/login/second-factor. 503 when this server sends no e-mail.',
  security: security.none,
  request: body(LoginEmailRequest),
  responses: {
    200: jsonResponse('A code was sent.', CodeSent),
    ...errorResponses(
      'VALIDATION_ERROR',
      'INVALID_CHALLENGE',
      'SECOND_FACTOR_NOT_PENDING',
      'SERVICE_UNAVAILABLE',
      'RATE_LIMITED',
    ),
  },
});
path(
  'post',
  '/auth/2fa/action/start',
  'startSensitiveAction',
  'Open a second-factor challenge for a sensitive action',
  {
    description:
      'Sensitive actions: change-password, delete-account, create-credential, withdrawal, refund, settlement, manage-2fa (turning on another second factor). Only for users with a second factor on (others need no action token).',
    security: security.bearer,
    request: body(ActionStartRequest),
    responses: {
      200: jsonResponse('The challenge.', ActionStart),
      ...errorResponses('VALIDATION_ERROR', 'SECOND_FACTOR_NOT_PENDING', ...bearerErrors),
    },
  },
);
path('post', '/auth/2fa/action/email', 'sendActionEmailCode', 'E-mail a code for an action challenge', {
  description:
    'Sends a one-time code to the signed-in user’s e-mail for an open action challenge (POST /auth/2fa/action/start; only when e-mail codes are on, else 409 SECOND_FACTOR_NOT_PENDING); confirm with POST /auth/2fa/action/confirm. 503 when this server sends no e-mail.',
  security: security.bearer,
  request: body(ActionEmailRequest),
  responses: {
    200: jsonResponse('A code was sent.', CodeSent),
    ...errorResponses(
      'VALIDATION_ERROR',
      'INVALID_CHALLENGE',
      'SECOND_FACTOR_NOT_PENDING',
      'SERVICE_UNAVAILABLE',
      ...bearerErrors,
    ),
  },
});
path('post', '/auth/2fa/action/confirm', 'confirmSensitiveAction', 'Get an action token with a code', {
  description:
    'The token is bound to this user and action, valid 5 minutes, and works once (send it as `x-action-token`). ' +
    `A token for an action that moves money or grants API access (refund, settlement, withdrawal, create-credential), and a recovery code used, are announced to the account by e-mail. ${noticeRule}`,
  security: security.bearer,
  request: body(ActionConfirmRequest),
  responses: {
    200: jsonResponse('The action token.', ActionToken),
    ...errorResponses(...codeErrors, 'INVALID_CHALLENGE', 'SERVICE_UNAVAILABLE', ...bearerErrors),
  },
});
