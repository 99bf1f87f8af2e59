/**
 * E-mails that tell an account's owner what was done with its second factors: a factor turned on,
 * a recovery code used, an action token issued for an action that moves money or grants API
 * access. A stolen session that adds a factor or mints such a token is then seen by the owner,
 * who is the one reading the mailbox. They say what happened and when, never a code, seed, token
 * or recovery code: mailboxes and mail servers keep what they are sent.
 */
import type { SensitiveAction } from './actionTokens';

export interface SecurityNotice {
  subject: string;
  text: string;
}

/** The actions whose action token, once issued, is announced: they move money or grant API access. */
export const MONEY_ACTIONS: ReadonlySet<SensitiveAction> = new Set<SensitiveAction>([
  'refund',
  'settlement',
  'withdrawal',
  'create-credential',
  'psp-connection',
]);

const ACTION_WORDS: Record<SensitiveAction, string> = {
  'change-password': 'change the password',
  'delete-account': 'delete the account',
  'create-credential': 'create API credentials',
  withdrawal: 'make a withdrawal',
  refund: 'make a refund',
  settlement: 'make a settlement (a transfer of the balance)',
  'manage-2fa': 'turn on another second factor',
  'psp-connection': 'register or revoke the PSP connection (the account your Pix is received in)',
};

const IF_NOT_YOU =
  'If this was you, there is nothing to do. If it was not, someone can sign in to your account: change your password now, ' +
  'check which second factors are on and tell support.';

const when = (at: Date) => `${at.toISOString().replace(/\.\d{3}Z$/, 'Z')} (UTC)`;

export function factorTurnedOn(
  factor: 'TOTP' | 'e-mail codes',
  at: Date,
  recoveryCodesIssued: boolean,
): SecurityNotice {
  const what = factor === 'TOTP' ? 'TOTP (an authenticator app)' : 'e-mail codes';
  return {
    subject: `Security notice: ${factor} turned on for your account`,
    text:
      `A second factor was turned on for your Pix Gateway account at ${when(at)}: ${what}.` +
      (recoveryCodesIssued ? ' New recovery codes were issued with it and shown once, to whoever turned it on.' : '') +
      `\n\n${IF_NOT_YOU}`,
  };
}

export function recoveryCodeUsed(purpose: 'sign in' | SensitiveAction, left: number, at: Date): SecurityNotice {
  const to = purpose === 'sign in' ? 'to sign in' : `to confirm a request to ${ACTION_WORDS[purpose]}`;
  return {
    subject: 'Security notice: a recovery code was used',
    text: `A recovery code of your Pix Gateway account was used ${to} at ${when(at)}. Each code works once: ${left === 1 ? '1 recovery code is' : `${left} recovery codes are`} left.\n\n${IF_NOT_YOU}`,
  };
}

export function actionTokenIssued(action: SensitiveAction, at: Date): SecurityNotice {
  return {
    subject: `Security notice: a second factor was confirmed to ${ACTION_WORDS[action]}`,
    text:
      `A second factor of your Pix Gateway account was confirmed at ${when(at)} to ${ACTION_WORDS[action]}. ` +
      `It gave a permission for one such request, valid 5 minutes.\n\n${IF_NOT_YOU}`,
  };
}
