/**
 * The rules of a PSP connection's plain fields, shared by the CLI (cli/connectionArgs.ts, flags)
 * and the application API (api/connections/schema.ts, a JSON body): each answers the normalised
 * value or a problem that the caller prefixes with its own name for the field.
 */
export type Checked = { value: string; problem?: undefined } | { problem: string; value?: undefined };

/** The PSP kinds a connection may be (API Pix + Efí's own routes). */
export const PSP_KINDS = ['efi'] as const;

/** The PSP's API base or token URL: https only (mutual TLS), no credentials in it, no trailing slash. */
export function httpsUrl(text: string): Checked {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: 'is not a URL' };
  }
  if (url.protocol !== 'https:') return { problem: 'must be an https URL (the PSP is reached over mutual TLS)' };
  if (url.username || url.password) return { problem: 'must not carry credentials' };
  return { value: text.replace(/\/+$/, '') };
}

/** The account's Pix key (a DICT key is at most 77 characters: an EVP, an e-mail, a phone, a CPF/CNPJ). */
export function pixKey(text: string): Checked {
  const trimmed = text.trim();
  if (trimmed.length < 1 || trimmed.length > 77) return { problem: 'must be 1 to 77 characters' };
  return { value: trimmed };
}

/** The account's number at its PSP (Efí's `conta`): how another account's Split Pix names it. */
export function accountNumber(text: string): Checked {
  const trimmed = text.trim();
  if (!/^\d{1,20}$/.test(trimmed)) return { problem: 'must be 1 to 20 digits (the account number at the PSP)' };
  return { value: trimmed };
}

/** The OAuth client id the PSP issued (printable, no spaces). */
export function clientId(text: string): Checked {
  if (!/^[\x21-\x7e]{1,200}$/.test(text)) return { problem: 'must be 1 to 200 printable characters without spaces' };
  return { value: text };
}
