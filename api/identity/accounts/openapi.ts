/** OpenAPI for the account routes (router.ts), from the schemas that validate them (schema.ts). */
import { z } from 'zod';
import { errorResponses, jsonResponse, registry, security } from '../../openapi/registry';
import { changePasswordBody, deleteAccountBody, registerBody, updateProfileBody, userView } from './schema';

// Derived copies (.describe): the routers import schema.ts before the registry extends zod.
const User = registry.register(
  'User',
  userView.describe('A signed-in person. Never carries the password or any second-factor secret.'),
);
const RegisterRequest = registry.register(
  'RegisterRequest',
  registerBody.describe(
    'A new account. `document` and `documentType` come together; CPF/CNPJ check digits are verified.',
  ),
);
const UpdateProfileRequest = registry.register(
  'UpdateProfileRequest',
  updateProfileBody.describe('The fields to change; at least one. The e-mail cannot be changed here.'),
);
const ChangePasswordRequest = registry.register(
  'ChangePasswordRequest',
  changePasswordBody.describe('The current password and the new one.'),
);
const DeleteAccountRequest = registry.register(
  'DeleteAccountRequest',
  deleteAccountBody.describe('The password, unless `x-action-token` is sent.'),
);
const Message = z.object({ message: z.string() });

const bearerErrors = ['AUTHENTICATION_REQUIRED', 'INVALID_ACCESS_TOKEN', 'RATE_LIMITED'] as const;
const actionTokenHeader = z.object({
  'x-action-token': z.string().optional().openapi({
    description: 'From POST /auth/2fa/action/confirm for this action; required when the user has a second factor on.',
  }),
});

registry.registerPath({
  method: 'post',
  path: '/auth/register',
  operationId: 'register',
  tags: ['Account'],
  summary: 'Create an account',
  description:
    'A person with an e-mail and a password; sign in afterwards with POST /auth/login. An e-mail already registered → 409 EMAIL_ALREADY_REGISTERED. The answer never carries the password or a second-factor secret.',
  security: security.none,
  request: { body: { required: true, content: { 'application/json': { schema: RegisterRequest } } } },
  responses: {
    201: jsonResponse('The new user.', User),
    ...errorResponses('VALIDATION_ERROR', 'EMAIL_ALREADY_REGISTERED', 'RATE_LIMITED'),
  },
});

registry.registerPath({
  method: 'get',
  path: '/auth/me',
  operationId: 'getMe',
  tags: ['Account'],
  summary: 'The signed-in user',
  description:
    'The user of the bearer access token: profile, roles and merchant; never the password hash or a second-factor secret.',
  security: security.bearer,
  responses: { 200: jsonResponse('The user.', User), ...errorResponses(...bearerErrors) },
});

registry.registerPath({
  method: 'put',
  path: '/auth/update-profile',
  operationId: 'updateProfile',
  tags: ['Account'],
  summary: 'Change name, phone or document',
  description:
    'Changes the fields sent; the e-mail and the password are changed elsewhere (the password with POST /auth/change-password).',
  security: security.bearer,
  request: { body: { required: true, content: { 'application/json': { schema: UpdateProfileRequest } } } },
  responses: { 200: jsonResponse('The user, changed.', User), ...errorResponses('VALIDATION_ERROR', ...bearerErrors) },
});

registry.registerPath({
  method: 'post',
  path: '/auth/change-password',
  operationId: 'changePassword',
  tags: ['Account'],
  summary: 'Change the password',
  description:
    'Needs the current password, and an action token for "change-password" when a second factor is on. Every other session of the user ends; this one stays. ' +
    'Wrong current passwords count with failed logins of the account: past 5 within 15 minutes the account is locked for growing periods (429 TOO_MANY_ATTEMPTS with Retry-After, even for the right password).',
  security: security.bearer,
  request: {
    headers: actionTokenHeader,
    body: { required: true, content: { 'application/json': { schema: ChangePasswordRequest } } },
  },
  responses: {
    200: jsonResponse('Changed.', Message),
    ...errorResponses(
      'VALIDATION_ERROR',
      'INVALID_PASSWORD',
      'SECOND_FACTOR_REQUIRED',
      'TOO_MANY_ATTEMPTS',
      ...bearerErrors,
    ),
  },
});

registry.registerPath({
  method: 'delete',
  path: '/auth/delete-account',
  operationId: 'deleteAccount',
  tags: ['Account'],
  summary: 'Delete the account',
  description:
    'Needs the password, or an action token for "delete-account". Personal data (name, e-mail, phone, document, avatar) is erased and every session ends; ' +
    'charges, payouts and the ledger are kept. Refused with 409 MERCHANT_HAS_BALANCE while a merchant the user owns holds money. The e-mail can be registered again. ' +
    'A wrong password counts with failed logins of the account (429 TOO_MANY_ATTEMPTS with Retry-After once locked).',
  security: security.bearer,
  request: {
    headers: actionTokenHeader,
    body: { required: false, content: { 'application/json': { schema: DeleteAccountRequest } } },
  },
  responses: {
    200: jsonResponse('Deleted.', Message),
    ...errorResponses(
      'VALIDATION_ERROR',
      'INVALID_PASSWORD',
      'SECOND_FACTOR_REQUIRED',
      'MERCHANT_HAS_BALANCE',
      'TOO_MANY_ATTEMPTS',
      ...bearerErrors,
    ),
  },
});
