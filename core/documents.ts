/** Brazilian tax ids: CPF (11 digits) and CNPJ (14 digits) with their check digits. */

export function onlyDigits(value: string): string {
  return value.replace(/\D/g, '');
}

function checkDigit(digits: number[], weights: number[]): number {
  const sum = digits.reduce((s, d, i) => s + d * weights[i], 0);
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

export function isValidCpf(value: string): boolean {
  const cpf = onlyDigits(value);
  if (!/^\d{11}$/.test(cpf) || /^(\d)\1{10}$/.test(cpf)) return false;
  const d = [...cpf].map(Number);
  const first = checkDigit(d.slice(0, 9), [10, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = checkDigit(d.slice(0, 10), [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
  return d[9] === first && d[10] === second;
}

export function isValidCnpj(value: string): boolean {
  const cnpj = onlyDigits(value);
  if (!/^\d{14}$/.test(cnpj) || /^(\d)\1{13}$/.test(cnpj)) return false;
  const d = [...cnpj].map(Number);
  const first = checkDigit(d.slice(0, 12), [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = checkDigit(d.slice(0, 13), [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  return d[12] === first && d[13] === second;
}

/** 'CPF' | 'CNPJ' for a valid document, else null. */
export function documentType(value: string): 'CPF' | 'CNPJ' | null {
  if (isValidCpf(value)) return 'CPF';
  if (isValidCnpj(value)) return 'CNPJ';
  return null;
}

/**
 * Whether a document as a directory shows it (a CPF masked like `***.982.247-**`, or in full)
 * is this one: the same length once the punctuation is gone, and every digit shown equal to
 * the document's at its place. At least six digits must be shown: a fully masked document
 * proves nothing.
 */
export function shownDocumentMatches(shown: string, document: string): boolean {
  const pattern = shown.replace(/[./\s-]/g, '');
  const digits = onlyDigits(document);
  if (pattern.length !== digits.length || !/^[\d*]+$/.test(pattern)) return false;
  let visible = 0;
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === '*') continue;
    if (pattern[i] !== digits[i]) return false;
    visible++;
  }
  return visible >= 6;
}
