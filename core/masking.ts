/** Masks for personal data shown in responses and receipts. Pure. */

/** Keeps `keepStart` and `keepEnd` characters and stars the middle; too-short values are fully starred. */
export function maskMiddle(value: string, keepStart: number, keepEnd: number): string {
  if (value.length <= keepStart + keepEnd) return '*'.repeat(value.length);
  return (
    value.slice(0, keepStart) + '*'.repeat(value.length - keepStart - keepEnd) + value.slice(value.length - keepEnd)
  );
}

/** CPF 529.982.247-25 → 529******25; CNPJ likewise (first 3 and last 2 digits kept). */
export function maskDocument(document: string): string {
  return maskMiddle(document, 3, 2);
}

/** Enough of the key to recognise it, never enough to reuse it. */
export function maskPixKey(key: string, type: string): string {
  switch (type) {
    case 'EMAIL': {
      const at = key.lastIndexOf('@');
      if (at <= 0) return maskMiddle(key, 1, 0);
      const local = key.slice(0, at);
      return `${maskMiddle(local, Math.min(2, local.length - 1), 0)}${key.slice(at)}`;
    }
    case 'PHONE':
      return maskMiddle(key, 5, 4); // +55 and the area code, then the last 4 digits
    case 'EVP':
      return maskMiddle(key, 8, 4);
    default:
      return maskDocument(key);
  }
}
