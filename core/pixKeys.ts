/**
 * Pix key formats (DICT rules), shared by withdrawals and payouts. Pure: validates and
 * normalises a key for its type; whether the key exists is the provider's (DICT's) answer.
 */
import { isValidCnpj, isValidCpf, onlyDigits } from './documents';
import type { PixKeyType } from './provider';

export const PIX_KEY_TYPES: readonly PixKeyType[] = ['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP'];

/** DICT's limit for e-mail keys. */
const MAX_EMAIL_KEY_LENGTH = 77;
const EMAIL =
  /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
/** +55, then area code (2 digits) and number (8 or 9 digits). */
const PHONE = /^\+55\d{10,11}$/;
const EVP = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export type PixKeyCheck = { ok: true; key: string; type: PixKeyType } | { ok: false; message: string };

export function isPixKeyType(value: string): value is PixKeyType {
  return (PIX_KEY_TYPES as readonly string[]).includes(value);
}

/** The key in its stored form (digits only, lower case, no phone punctuation), or why it is invalid. */
export function normalizePixKey(type: string, raw: string): PixKeyCheck {
  if (!isPixKeyType(type)) return { ok: false, message: `key type must be one of ${PIX_KEY_TYPES.join(', ')}` };
  const value = raw.trim();
  switch (type) {
    case 'CPF': {
      if (!/^[\d.-]+$/.test(value) || !isValidCpf(value))
        return { ok: false, message: 'not a valid CPF (11 digits with check digits)' };
      return { ok: true, key: onlyDigits(value), type };
    }
    case 'CNPJ': {
      if (!/^[\d./-]+$/.test(value) || !isValidCnpj(value))
        return { ok: false, message: 'not a valid CNPJ (14 digits with check digits)' };
      return { ok: true, key: onlyDigits(value), type };
    }
    case 'EMAIL': {
      const email = value.toLowerCase();
      if (email.length > MAX_EMAIL_KEY_LENGTH || !EMAIL.test(email))
        return { ok: false, message: `not a valid e-mail of at most ${MAX_EMAIL_KEY_LENGTH} characters` };
      return { ok: true, key: email, type };
    }
    case 'PHONE': {
      const phone = value.replace(/[\s()-]/g, '');
      if (!PHONE.test(phone)) return { ok: false, message: 'phone keys are +55 followed by 10 or 11 digits' };
      return { ok: true, key: phone, type };
    }
    case 'EVP': {
      const evp = value.toLowerCase();
      if (!EVP.test(evp)) return { ok: false, message: 'random (EVP) keys are UUIDs' };
      return { ok: true, key: evp, type };
    }
  }
}

/**
 * The type of a key given without one (a PSP connection's own key, stored as the merchant gave
 * it): a UUID is random (EVP), an address e-mail, +55… a phone, 14 or 11 valid digits a CNPJ or
 * CPF. Null when it is none of them.
 */
export function pixKeyTypeOf(raw: string): PixKeyType | null {
  for (const type of ['EVP', 'EMAIL', 'PHONE', 'CNPJ', 'CPF'] as const) if (normalizePixKey(type, raw).ok) return type;
  return null;
}
