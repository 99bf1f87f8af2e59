/** The fake payer and the sandbox's own identity as a PSP. */
import type { ProviderPayer } from '../core/provider';

/** Not a real institution: 99999999 is outside the ISPBs BACEN assigns to participants. */
export const SANDBOX_ISPB = '99999999';

/** Receiving side of the static BR Codes the sandbox issues. */
export const SANDBOX_MERCHANT = Object.freeze({
  name: 'PIX GATEWAY SANDBOX',
  city: 'SAO PAULO',
  // A check-digit-valid CNPJ used as the Pix key (short, so field 26 has room for the txid).
  pixKey: '11222333000181',
  /** The receiving account holder's CNPJ (the key above is its CNPJ key); API Pix shows it on webhooks. */
  cnpj: '11222333000181',
});

export function defaultPayer(): ProviderPayer {
  return {
    name: 'Pagador Sandbox',
    document: '52998224725', // check-digit-valid CPF widely used as a test value
    documentType: 'CPF',
    email: null,
    phone: null,
    institution: 'Banco Sandbox',
    ispb: SANDBOX_ISPB,
    agency: '0001',
    account: '1234567-8',
  };
}
