/** Bodies and answers of the second-factor routes; the same schemas validate and document (openapi.ts). */
import { z } from 'zod';
import { SENSITIVE_ACTIONS } from './actionTokens';
import { text } from '../../validation/text';

const code = () =>
  text()
    .trim()
    .min(6)
    .max(20)
    .meta({ description: 'A 6-digit TOTP or e-mail code, or a recovery code (`xxxxx-xxxxx`).', example: '123456' });
const challengeToken = () =>
  text().min(1).max(200).meta({ description: 'From the login answer with `secondFactorRequired: true`.' });

export const codeBody = z.strictObject({
  code: z
    .string()
    .trim()
    .regex(/^\d{6}$/, 'a 6-digit code'),
});
export const loginSecondFactorBody = z.strictObject({ challengeToken: challengeToken(), code: code() });
export const loginEmailBody = z.strictObject({ challengeToken: challengeToken() });
export const actionStartBody = z.strictObject({ action: z.enum(SENSITIVE_ACTIONS) });
export const actionEmailBody = z.strictObject({ challengeId: z.uuid() });
export const actionConfirmBody = z.strictObject({ challengeId: z.uuid(), code: code() });

export const statusAnswer = z.object({
  enabled: z.boolean(),
  totp: z.object({ enabled: z.boolean(), pending: z.boolean() }),
  email: z.object({ enabled: z.boolean() }),
  recoveryCodesLeft: z.number().int(),
});
export const totpSetupAnswer = z.object({
  otpauthUrl: z.string().describe('otpauth://totp/… for authenticator apps.'),
  secret: z.string().describe('The base32 seed, for manual entry. Shown by each setup call until confirmed.'),
  qrCodePng: z.string().describe('data:image/png;base64,… QR code of otpauthUrl.'),
});
export const enabledAnswer = z.object({
  message: z.string(),
  recoveryCodes: z
    .array(z.string())
    .describe('10 single-use recovery codes, shown once, when this is the first factor turned on; empty otherwise.'),
});
export const codeSentAnswer = z.object({ message: z.string(), expiresAt: z.iso.datetime() });
export const loginMethodsAnswer = z.object({
  methods: z.array(z.enum(['totp', 'email', 'recovery'])),
  expiresAt: z.iso.datetime(),
});
export const actionStartAnswer = z.object({
  challengeId: z.uuid(),
  action: z.enum(SENSITIVE_ACTIONS),
  methods: z.array(z.enum(['totp', 'email', 'recovery'])),
  expiresAt: z.iso.datetime(),
});
export const actionTokenAnswer = z.object({
  actionToken: z.string().describe('Send as `x-action-token` on the action’s route; valid 5 minutes, once.'),
  action: z.enum(SENSITIVE_ACTIONS),
  expiresAt: z.iso.datetime(),
});
