/**
 * How a receipt shows personal data. Pure.
 *
 * - CPF (a person): `***.456.789-**`, the mask BACEN recommends for Pix and that Brazilian banks
 *   print on comprovantes (the 4th to 9th digits shown, the first three and the check digits hidden).
 * - CNPJ (a company): shown in full, `11.222.333/0001-81`, as banks do. A company's CNPJ is public
 *   (Receita Federal publishes it with the company's name), and the payer needs it to know whom
 *   they paid.
 * - Pix key: by its kind. A CPF key masks like a CPF, a CNPJ key is shown in full, e-mail keeps
 *   its first two letters and the domain, a phone its country and area code and last 4 digits, a
 *   random key (EVP) its first 8 and last 4 characters.
 * - Account: only the last 4 characters (with the check digit); the agency is shown as is.
 */
import { maskMiddle } from '../masking';
import type { Party } from './facts';

const digitsOnly = (value: string): string => value.replace(/\D/g, '');

/** A CPF or CNPJ as a receipt prints it; anything else is fully starred (never shown raw). */
export function maskReceiptDocument(document: string | null): string | null {
  if (document === null) return null;
  const d = digitsOnly(document);
  if (d.length === 11) return `***.${d.slice(3, 6)}.${d.slice(6, 9)}-**`;
  if (d.length === 14) return `${d.slice(0, 2)}.${d.slice(2, 5)}.${d.slice(5, 8)}/${d.slice(8, 12)}-${d.slice(12)}`;
  return '*'.repeat(document.length);
}

/** "CPF" / "CNPJ" by the number of digits; null when it is neither. */
export function documentLabel(document: string | null): 'CPF' | 'CNPJ' | null {
  if (document === null) return null;
  const n = digitsOnly(document).length;
  return n === 11 ? 'CPF' : n === 14 ? 'CNPJ' : null;
}

const EVP = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The Pix key's kind from its shape (the DICT formats: CPF, CNPJ, +55 phone, e-mail, UUID). */
export function pixKeyKind(key: string): 'CPF' | 'CNPJ' | 'PHONE' | 'EMAIL' | 'EVP' | 'OTHER' {
  if (key.includes('@')) return 'EMAIL';
  if (/^\+\d{8,15}$/.test(key)) return 'PHONE';
  if (EVP.test(key)) return 'EVP';
  if (/^\d{11}$/.test(key)) return 'CPF';
  if (/^\d{14}$/.test(key)) return 'CNPJ';
  return 'OTHER';
}

export function maskReceiptPixKey(key: string | null): string | null {
  if (key === null) return null;
  switch (pixKeyKind(key)) {
    case 'CPF':
    case 'CNPJ':
      return maskReceiptDocument(key);
    case 'EMAIL': {
      const at = key.lastIndexOf('@');
      const local = key.slice(0, at);
      return at <= 0 ? maskMiddle(key, 1, 0) : `${maskMiddle(local, Math.min(2, local.length - 1), 0)}${key.slice(at)}`;
    }
    case 'PHONE':
      return maskMiddle(key, 5, 4);
    case 'EVP':
      return maskMiddle(key, 8, 4);
    default:
      return maskMiddle(key, 2, 2);
  }
}

/** "1234567-8" → "****567-8": the last 4 characters, enough to recognise one's own account. */
export function maskAccount(account: string | null): string | null {
  if (account === null) return null;
  return maskMiddle(account, 0, 4);
}

/** The party as a receipt shows it: the name and agency as stored, everything personal masked. */
export interface MaskedParty {
  name: string;
  document: string | null;
  documentType: 'CPF' | 'CNPJ' | null;
  institution: string | null;
  ispb: string | null;
  agency: string | null;
  account: string | null;
  pixKey: string | null;
}

export function maskParty(party: Party | null): MaskedParty | null {
  if (!party) return null;
  return {
    name: party.name,
    document: maskReceiptDocument(party.document),
    documentType: documentLabel(party.document),
    institution: party.institution,
    ispb: party.ispb,
    agency: party.agency,
    account: maskAccount(party.account),
    pixKey: maskReceiptPixKey(party.pixKey),
  };
}
