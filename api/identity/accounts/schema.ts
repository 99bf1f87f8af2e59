/** Bodies of the account routes; the same schemas validate and document (openapi.ts). */
import { z } from 'zod';
import { PASSWORD_MAX, PASSWORD_MIN } from '../../../core/identity/passwords';
import { isValidCnpj, isValidCpf } from '../../../core/documents';
import { text } from '../../validation/text';

export const email = () =>
  z.email({ error: 'must be an e-mail address' }).max(254).meta({ example: 'ana@loja.com.br' });
export const password = () =>
  text()
    .min(PASSWORD_MIN)
    .max(PASSWORD_MAX)
    .meta({ description: `${PASSWORD_MIN} to ${PASSWORD_MAX} characters.` });
const name = () => text().trim().min(2).max(120);
const phone = () =>
  z
    .string()
    .regex(/^\+?[0-9 ()-]{8,20}$/, 'a phone number: digits, optionally with +, spaces, () and -')
    .nullable()
    .meta({ example: '+55 11 99999-0000' });
const document = () =>
  z
    .string()
    .regex(/^[0-9./ -]{11,18}$/, 'a CPF or CNPJ: digits, optionally with . / - separators')
    .nullable()
    .meta({ example: '529.982.247-25' });
const documentType = () => z.enum(['CPF', 'CNPJ']).nullable();

/** A document and its type come together, and the check digits must be right. */
function documentRule(
  value: { document?: string | null; documentType?: 'CPF' | 'CNPJ' | null },
  ctx: z.RefinementCtx,
): void {
  const hasDoc = value.document !== undefined && value.document !== null;
  const hasType = value.documentType !== undefined && value.documentType !== null;
  if (hasDoc !== hasType) {
    ctx.addIssue({
      code: 'custom',
      path: [hasDoc ? 'documentType' : 'document'],
      message: 'document and documentType are given together',
    });
    return;
  }
  if (!hasDoc) return;
  const ok = value.documentType === 'CPF' ? isValidCpf(value.document!) : isValidCnpj(value.document!);
  if (!ok)
    ctx.addIssue({ code: 'custom', path: ['document'], message: `not a valid ${value.documentType} (check digits)` });
}

export const registerBody = z
  .strictObject({
    email: email(),
    password: password(),
    name: name(),
    phone: phone().optional(),
    document: document().optional(),
    documentType: documentType().optional(),
  })
  .superRefine(documentRule);
export type Registration = z.output<typeof registerBody>;

export const updateProfileBody = z
  .strictObject({
    name: name().optional(),
    phone: phone().optional(),
    document: document().optional(),
    documentType: documentType().optional(),
  })
  .superRefine(documentRule)
  .refine((v) => Object.keys(v).length > 0, { message: 'send at least one field to change' })
  .meta({ minProperties: 1 });
export type ProfileUpdate = z.output<typeof updateProfileBody>;

export const changePasswordBody = z
  .strictObject({ currentPassword: text().min(1).max(PASSWORD_MAX), newPassword: password() })
  .refine((v) => v.currentPassword !== v.newPassword, {
    path: ['newPassword'],
    message: 'must differ from the current password',
  });

export const deleteAccountBody = z
  .strictObject({
    password: text()
      .min(1)
      .max(PASSWORD_MAX)
      .optional()
      .meta({ description: 'The password; or send `x-action-token` for "delete-account" instead.' }),
  })
  .meta({ description: 'Either the password in the body or a second-factor action token in `x-action-token`.' });

export const userView = z.object({
  id: z.uuid(),
  email: z.email().nullable(),
  name: z.string(),
  phone: z.string().nullable(),
  document: z.string().nullable(),
  documentType: z.enum(['CPF', 'CNPJ']).nullable(),
  roles: z.array(z.string()).describe('Roles the user holds on their merchants: owner, admin, finance, viewer.'),
  merchantId: z
    .uuid()
    .nullable()
    .describe('The merchant the user owns (or first belongs to); null before POST /dashboard/merchant/ensure.'),
  kycStatus: z.string().nullable(),
  avatarUrl: z.string().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
