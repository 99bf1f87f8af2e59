/** Bodies of the session routes; the same schemas validate and document (openapi.ts). */
import { z } from 'zod';
import { PASSWORD_MAX } from '../../../core/identity/passwords';
import { email } from '../accounts/schema';
import { text } from '../../validation/text';

// Any length up to the cap: a login must not tell which passwords the policy would refuse.
export const loginBody = z.strictObject({ email: email(), password: text().min(8).max(PASSWORD_MAX) });

export const loginAnswer = z.object({
  message: z.string(),
  accessToken: z.string().describe('JWT, valid 15 minutes: `Authorization: Bearer <accessToken>`.'),
  refreshToken: z
    .string()
    .describe(
      'Valid 7 days, used once (each refresh hands out the next one). Also set as the httpOnly `refresh_token` cookie (path /auth).',
    ),
  expiresIn: z.number().int().describe('Seconds the access token lives (900).'),
});

export const secondFactorChallenge = z.object({
  message: z.string(),
  secondFactorRequired: z.literal(true),
  challengeToken: z.string().describe('Send it to POST /auth/login/second-factor with a code; valid 10 minutes.'),
  methods: z.array(z.enum(['totp', 'email', 'recovery'])),
});

export const refreshAnswer = z.object({ accessToken: z.string(), expiresIn: z.number().int() });
export const csrfAnswer = z.object({
  csrfToken: z
    .string()
    .describe(
      'Send it as `x-csrf-token` on POST /auth/refresh and /auth/logout; it is also set as the `csrf_token` cookie.',
    ),
});
export const messageAnswer = z.object({ message: z.string() });
