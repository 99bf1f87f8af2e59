/**
 * Passwords: argon2id with the library's defaults (64 MiB, t=3, p=4; OWASP's recommended
 * profile). `verifyOrBurn` spends the same time when there is no account, so a login for an
 * unknown e-mail cannot be told from a wrong password by timing.
 *
 * The `test` hashing (1 MiB, t=1, p=1) exists for the test suite only: several hundred sign-ups
 * and logins at the OWASP cost spent about 150 CPU-seconds of every run. config.ts reads it
 * (PASSWORD_HASHING) only under NODE_ENV=test, so production can never use it. A hash records its
 * own parameters, so either hashing verifies the other's hashes.
 */
import argon2 from 'argon2';

export const PASSWORD_MIN = 8;
/** argon2 takes any length; a cap keeps one request from costing more than another. */
export const PASSWORD_MAX = 128;

export const PASSWORD_HASHINGS = ['owasp', 'test'] as const;
export type PasswordHashing = (typeof PASSWORD_HASHINGS)[number];

const OPTIONS: Record<PasswordHashing, argon2.HashOptions> = {
  owasp: { type: argon2.argon2id },
  test: { type: argon2.argon2id, memoryCost: 1024, timeCost: 1, parallelism: 1 },
};

const dummyHashes = new Map<PasswordHashing, Promise<string>>();

export function hashPassword(password: string, hashing: PasswordHashing = 'owasp'): Promise<string> {
  return argon2.hash(password, { ...OPTIONS[hashing], raw: false });
}

/**
 * True when `password` matches `hash`; with no hash, verifies against a dummy made with the same
 * hashing (so it costs what a real account's check costs) and answers false.
 */
export async function verifyOrBurn(
  hash: string | null | undefined,
  password: string,
  hashing: PasswordHashing = 'owasp',
): Promise<boolean> {
  let dummy = dummyHashes.get(hashing);
  if (!dummy) dummyHashes.set(hashing, (dummy = hashPassword('dummy password that matches nothing', hashing)));
  const target = hash ?? (await dummy);
  try {
    const ok = await argon2.verify(target, password);
    return Boolean(hash) && ok;
  } catch {
    return false;
  }
}
