/**
 * Free field (campo livre, barcode positions 20–44) of the sandbox bank. Each bank defines its
 * own 25-digit layout; ours is the simplest that carries what a bank needs to find the boleto:
 *
 *   nosso número (17 digits) · agency (4) · account (4)
 *
 * The sandbox bank's code is 999: not a COMPE code BACEN has assigned, so a sandbox boleto can
 * never be mistaken for (or paid at) a real bank. Validators check the digits, not the bank
 * list (the tests show @brazilian-utils/brazilian-utils and boleto-brasileiro-validator accept it).
 */

export const SANDBOX_BANK_CODE = '999';
export const SANDBOX_AGENCY = '0001';
export const SANDBOX_ACCOUNT = '1234';

export interface SandboxFreeField {
  nossoNumero: string; // 17 digits
  agency: string; // 4 digits
  account: string; // 4 digits
}

export function buildSandboxFreeField({ nossoNumero, agency, account }: SandboxFreeField): string {
  if (!/^\d{17}$/.test(nossoNumero)) throw new RangeError('nossoNumero must be 17 digits');
  if (!/^\d{4}$/.test(agency) || !/^\d{4}$/.test(account)) throw new RangeError('agency and account must be 4 digits');
  return `${nossoNumero}${agency}${account}`;
}

export function parseSandboxFreeField(freeField: string): SandboxFreeField {
  if (!/^\d{25}$/.test(freeField)) throw new RangeError('freeField must be 25 digits');
  return { nossoNumero: freeField.slice(0, 17), agency: freeField.slice(17, 21), account: freeField.slice(21, 25) };
}

/** The n-th nosso número the sandbox assigns (1-based), zero-padded to 17 digits. */
export function sandboxNossoNumero(sequence: number): string {
  if (!Number.isSafeInteger(sequence) || sequence < 1) throw new RangeError('sequence must be a positive integer');
  return String(sequence).padStart(17, '0');
}
