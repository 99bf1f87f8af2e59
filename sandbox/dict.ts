/**
 * The Pix directory (DICT) as this PSP answers a key look-up: who owns a key (name, the document
 * masked as the central bank's rules show a natural person's CPF, the document type) and at which
 * institution. Deterministic, so tests can choose the answer:
 *  - a CPF or CNPJ key with valid check digits belongs to that document, at the sandbox bank;
 *  - e-mail, phone and random (EVP) keys are known once registered by the control route
 *    POST /sandbox/dict/keys (in memory: a test control, lost on restart);
 *  - anything else, and any key containing "invalid", is not found.
 */
import { documentType, isValidCnpj, isValidCpf } from '../core/documents';
import type { PixKeyType } from '../core/provider';
import { SandboxHttpError } from './errors';
import { SANDBOX_ISPB } from './payer';
import type { DictEntry, SandboxState } from './state';

const SANDBOX_BANK = 'Banco Sandbox';

/** What GET /v1/dict/keys/:key answers. */
export interface DictKeyView {
  key: string;
  keyType: PixKeyType;
  owner: { name: string; documentType: 'CPF' | 'CNPJ'; document: string };
  bank: { ispb: string; name: string };
}

/** The directory's entry for a key (stored form: digits, lower-case e-mail), or null. */
export function findDictEntry(state: SandboxState, key: string): DictEntry | null {
  if (key.toLowerCase().includes('invalid')) return null;
  const registered = state.dictKeys.get(key.toLowerCase());
  if (registered) return registered;
  if (isValidCpf(key) && /^\d{11}$/.test(key))
    return {
      key,
      keyType: 'CPF',
      ownerName: `Titular ${key.slice(-4)}`,
      ownerDocument: key,
      ispb: SANDBOX_ISPB,
      bankName: SANDBOX_BANK,
    };
  if (isValidCnpj(key) && /^\d{14}$/.test(key))
    return {
      key,
      keyType: 'CNPJ',
      ownerName: `Empresa ${key.slice(-6)}`,
      ownerDocument: key,
      ispb: SANDBOX_ISPB,
      bankName: SANDBOX_BANK,
    };
  return null;
}

export function lookUpKey(state: SandboxState, key: string): DictKeyView {
  const entry = findDictEntry(state, key);
  if (!entry) throw new SandboxHttpError(404, 'PIX_KEY_NOT_FOUND', 'the Pix key is not in the directory');
  const type = documentType(entry.ownerDocument) ?? 'CPF';
  return {
    key: entry.key,
    keyType: entry.keyType,
    owner: { name: entry.ownerName, documentType: type, document: maskForDirectory(entry.ownerDocument, type) },
    bank: { ispb: entry.ispb, name: entry.bankName },
  };
}

export function registerKey(
  state: SandboxState,
  input: {
    key: string;
    keyType: PixKeyType;
    ownerName: string;
    ownerDocument: string;
    ispb?: string;
    bankName?: string;
  },
): DictEntry {
  const entry: DictEntry = {
    key: input.key.toLowerCase(),
    keyType: input.keyType,
    ownerName: input.ownerName,
    ownerDocument: input.ownerDocument,
    ispb: input.ispb ?? SANDBOX_ISPB,
    bankName: input.bankName ?? SANDBOX_BANK,
  };
  state.dictKeys.set(entry.key, entry);
  return entry;
}

/** A CPF as the Pix directory shows it to others (digits 4 to 9: ***.982.247-**); a CNPJ is public, in full. */
export function maskForDirectory(document: string, type: 'CPF' | 'CNPJ'): string {
  if (type === 'CNPJ')
    return `${document.slice(0, 2)}.${document.slice(2, 5)}.${document.slice(5, 8)}/${document.slice(8, 12)}-${document.slice(12)}`;
  return `***.${document.slice(3, 6)}.${document.slice(6, 9)}-**`;
}
