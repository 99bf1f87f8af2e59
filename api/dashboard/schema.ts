/** Requests and answers of the dashboard routes; the same schemas validate and document (openapi.ts). */
import { z } from 'zod';
import { documentType } from '../../core/documents';
import { ALL_SCOPES } from '../identity/auth/scopes';
import { text } from '../validation/text';

export const MERCHANT_TYPES = ['PRODUCER', 'RIFEIRO'] as const;

export const ensureMerchantBody = z.strictObject({
  name: text().trim().min(2).max(120).meta({ example: 'Loja da Ana' }),
  document: z
    .string()
    .regex(/^[0-9./ -]{11,18}$/, 'a CPF or CNPJ: digits, optionally with . / - separators')
    .refine((d) => documentType(d) !== null, 'not a valid CPF or CNPJ (check digits)')
    .meta({
      example: '11.222.333/0001-81',
      description: 'CPF or CNPJ with valid check digits; stored as digits only.',
    }),
  type: z.enum(MERCHANT_TYPES).default('PRODUCER').meta({ description: 'PRODUCER (default) or RIFEIRO.' }),
});
export type EnsureMerchant = z.output<typeof ensureMerchantBody>;

export const merchantView = z.object({
  id: z.uuid(),
  name: z.string(),
  email: z.string().nullable(),
  document: z.string().nullable(),
  type: z.enum(MERCHANT_TYPES),
  active: z.boolean(),
});
export const ensuredMerchantView = merchantView.extend({
  created: z.boolean().describe('true when this call created the merchant; false when the user already owned it.'),
});

const scopeList = z
  .array(z.enum(ALL_SCOPES as [string, ...string[]]))
  .min(1, 'name at least one scope')
  .max(ALL_SCOPES.length)
  .refine((s) => new Set(s).size === s.length, 'each scope once')
  .meta({ example: ['charges:read', 'charges:write'], description: '`<family>:write` includes `<family>:read`.' });

export const merchantIdField = () => z.uuid({ error: 'must be a merchant id (uuid)' });

/**
 * The hosted checkout page's branding. A field left out is left unchanged; null clears it. The
 * logo must be https (the page's CSP loads images from https: only; http would be mixed content).
 */
export const brandingBody = z.strictObject({
  merchantId: merchantIdField(),
  logoUrl: z
    .string()
    .max(2048)
    .regex(/^https:\/\/[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(\/[A-Za-z0-9\-._~%!$&'()*+,;=:@/?#]*)?$/, 'an https URL')
    .nullable()
    .optional()
    .meta({
      example: 'https://loja.example.com/logo.png',
      description: 'https URL of the logo shown on the checkout page; null removes it.',
    }),
  color: z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/, "a colour '#rrggbb'")
    .nullable()
    .optional()
    .meta({
      example: '#0a7d5a',
      description:
        "The page's brand colour '#rrggbb'; null: the default. The text on it is chosen for WCAG AA contrast.",
    }),
});
export type Branding = z.output<typeof brandingBody>;

export const brandedMerchantView = merchantView.extend({
  logoUrl: z.string().nullable(),
  color: z.string().nullable(),
});

export const createCredentialBody = z.strictObject({
  merchantId: merchantIdField(),
  name: text().trim().min(1).max(80).meta({ example: 'production' }),
  scopes: scopeList,
});
export type NewDashboardCredential = z.output<typeof createCredentialBody>;

export const listCredentialsQuery = z.strictObject({
  merchantId: merchantIdField(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(100_000).default(0),
});

export const clientIdParam = z.string().regex(/^cli_[0-9a-f]{1,64}$/, 'a client id (cli_…)');

export const createdCredentialView = z.object({
  clientId: z.string(),
  clientSecret: z
    .string()
    .describe('Shown only in this answer; stored encrypted. Keep it on your server and never log it.'),
  merchantId: z.uuid(),
  name: z.string().nullable(),
  scopes: z.array(z.string()),
  createdAt: z.iso.datetime(),
});

export const credentialView = z.object({
  clientId: z.string(),
  merchantId: z.uuid(),
  name: z.string().nullable(),
  scopes: z.array(z.string()),
  active: z.boolean().describe('false once revoked; a revoked credential is refused with 401 INVALID_CREDENTIALS.'),
  lastUsedAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
});

export const revokedCredentialView = z.object({ message: z.string(), clientId: z.string(), active: z.literal(false) });
