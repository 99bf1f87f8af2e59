/**
 * The codes of the second factors, each checked by a library or a constant-time compare:
 * TOTP (otplib, RFC 6238, ±1 step of clock drift, a step never accepted twice), e-mail codes
 * (6 digits, 10 minutes, bound to their challenge), recovery codes (10 per user, high-entropy,
 * single use). Only hashes are stored; the TOTP seed is encrypted.
 */
import crypto from 'node:crypto';
import { authenticator } from 'otplib';
import { sha256 } from '../../../core/identity/opaqueTokens';

export const EMAIL_CODE_TTL_SECONDS = 10 * 60;
export const RECOVERY_CODES = 10;
/** ±1 step (30 s) of clock drift between the phone and us. */
const totp = authenticator.clone({ window: 1, step: 30, digits: 6 });

export function newTotpSecret(): string {
  return totp.generateSecret(20); // 160 bits, as RFC 4226 recommends
}

export function totpUri(secret: string, account: string): string {
  return totp.keyuri(account, 'Pix Gateway', secret);
}

/** The accepted time step, or null. `afterStep` refuses a replay of an already used code. */
export function checkTotp(secret: string, code: string, afterStep: number | null): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const now = Date.now();
  const delta = totp.clone({ epoch: now }).checkDelta(code, secret);
  if (delta === null) return null;
  const step = Math.floor(now / 30_000) + delta;
  return afterStep !== null && step <= afterStep ? null : step;
}

export function newEmailCode(): string {
  return String(crypto.randomInt(0, 1_000_000)).padStart(6, '0');
}

/** E-mail codes are hashed with their challenge id: a code is worthless for any other challenge. */
export function emailCodeHash(challengeId: string, code: string): string {
  return sha256(`${challengeId}:${code}`);
}

const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** `xxxxx-xxxxx`: about 49 bits each, easy to copy from paper. */
export function newRecoveryCode(): string {
  const pick = () =>
    Array.from({ length: 5 }, () => RECOVERY_ALPHABET[crypto.randomInt(RECOVERY_ALPHABET.length)]).join('');
  return `${pick()}-${pick()}`;
}

export function recoveryCodeHash(code: string): string {
  return sha256(`recovery:${code.trim().toLowerCase()}`);
}

export const looksLikeRecoveryCode = (code: string) => /^[a-z0-9]{5}-[a-z0-9]{5}$/i.test(code.trim());
