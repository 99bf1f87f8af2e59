/**
 * Sensitive actions (change password, delete account, create API credentials, refunds,
 * settlements, withdrawals, adding a second factor, registering or revoking the merchant's PSP
 * connection) need a fresh second factor when the user has one: an action token from POST /auth/2fa/action/confirm, sent as `x-action-token`, bound to that
 * user and that action, valid 5 minutes, used once.
 */
import type { Request } from 'express';
import { newOpaqueToken, sha256 } from '../../../core/identity/opaqueTokens';
import { secondFactorStore } from '../../../db/identity';
import type { Tx } from '../../../db/tx';
import { ApiError } from '../../errors/apiError';
import { methodsOf } from '../sessions/service';

/** `manage-2fa`: turning a factor on when one is on already (api/identity/twoFactor/service.ts). */
export const SENSITIVE_ACTIONS = [
  'change-password',
  'delete-account',
  'create-credential',
  'withdrawal',
  'refund',
  'settlement',
  'manage-2fa',
  'psp-connection',
] as const;
export type SensitiveAction = (typeof SENSITIVE_ACTIONS)[number];

export const ACTION_TOKEN_TTL_SECONDS = 5 * 60;

export const secondFactorRequired = (action: SensitiveAction) =>
  new ApiError(
    403,
    'SECOND_FACTOR_REQUIRED',
    `this action needs a second factor: get an action token for "${action}" from POST /auth/2fa/action/start and /confirm, and send it as x-action-token`,
    { action },
  );

export async function issueActionToken(
  userId: string,
  action: SensitiveAction,
  transaction?: Tx,
): Promise<{ actionToken: string; expiresAt: Date }> {
  const actionToken = newOpaqueToken('act');
  const expiresAt = new Date(Date.now() + ACTION_TOKEN_TTL_SECONDS * 1000);
  await secondFactorStore.addActionToken({ userId, action, tokenHash: sha256(actionToken), expiresAt }, transaction);
  return { actionToken, expiresAt };
}

export async function hasSecondFactor(userId: string): Promise<boolean> {
  return methodsOf(await secondFactorStore.findFactor(userId)).length > 0;
}

/** The request's `x-action-token`, unless it is too long to be one of ours. */
export function presentedActionToken(req: Request): string | undefined {
  const presented = req.header('x-action-token');
  return presented && presented.length <= 200 ? presented : undefined;
}

/** Whether `presented` is a live token of this user for `action`, leaving it unused (a 2FA setup checks the token its confirm will use). */
export async function isLiveActionToken(
  presented: string | undefined,
  userId: string,
  action: SensitiveAction,
): Promise<boolean> {
  if (!presented) return false;
  return secondFactorStore.isLiveActionToken(sha256(presented), userId, action);
}

/** Uses `presented` for `action`: true once, for one request, however many send it at once. */
export async function useActionToken(
  presented: string | undefined,
  userId: string,
  action: SensitiveAction,
  transaction?: Tx,
): Promise<boolean> {
  if (!presented) return false;
  return secondFactorStore.useActionToken(sha256(presented), userId, action, transaction);
}

/**
 * Consumes the request's action token for `action`. Answers true when one was consumed, false
 * when none was sent and the user has no second factor; throws 403 SECOND_FACTOR_REQUIRED when
 * the user has one and no valid token came.
 */
export async function consumeActionToken(req: Request, userId: string, action: SensitiveAction): Promise<boolean> {
  if (await useActionToken(presentedActionToken(req), userId, action)) return true;
  if (req.header('x-action-token') || (await hasSecondFactor(userId))) throw secondFactorRequired(action);
  return false;
}
