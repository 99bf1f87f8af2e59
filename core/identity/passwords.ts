/**
 * Passwords: argon2id with the library's defaults (64 MiB, t=3, p=4; OWASP's recommended
 * profile). `verifyOrBurn` spends the same time when there is no account, so a login for an
 * unknown e-mail cannot be told from a wrong password by timing.
 */
import argon2 from 'argon2';

export const PASSWORD_MIN = 8;
/** argon2 takes any length; a cap keeps one request from costing more than another. */
export const PASSWORD_MAX = 128;

let dummyHash: Promise<string> | undefined;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id });
}

/** True when `password` matches `hash`; with no hash, verifies against a dummy and answers false. */
export async function verifyOrBurn(hash: string | null | undefined, password: string): Promise<boolean> {
  dummyHash ??= hashPassword('dummy password that matches nothing');
  const target = hash ?? (await dummyHash);
  try {
    const ok = await argon2.verify(target, password);
    return Boolean(hash) && ok;
  } catch {
    return false;
  }
}
