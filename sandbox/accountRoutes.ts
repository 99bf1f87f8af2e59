/**
 * /sandbox/accounts test controls (behind the control token, no faults: controlRoutes.ts):
 *  - POST / {keys?, name?, cnpj?, openingBalanceCents?}: 201 a new account of the PSP with its
 *    client id and secret and its own client certificate and key, PEM (the only answer that ever
 *    carries the key: accountCertificates.ts), its keys (one random EVP key when none is asked) and
 *    its balance;
 *  - POST /:id/secret: 200 a new client secret for a created account (the old one takes no token
 *    from now on; tokens already taken stay valid until they expire), or 404 ACCOUNT_NOT_FOUND
 *    (the default account's secret is its configuration's);
 *  - GET /: every account (each with its number, `conta`, which a Split Pix favorecido names); GET /:id: one ("default" is the account the configuration describes),
 *    or 404 ACCOUNT_NOT_FOUND. Reads never carry the secret.
 */
import { Router } from 'express';
import { z } from 'zod';
import { isValidCnpj } from '../core/documents';
import type { SandboxAccount } from './accounts';
import { accountBalanceCents } from './balances';
import type { SandboxContext } from './context';
import { signedValor } from './efi/balanceRoutes';
import { PIX_KEY_RE } from './efi/sends';
import { SandboxHttpError } from './errors';
import { parseBody } from './schemas';

const newAccountSchema = z
  .object({
    keys: z
      .array(z.string().max(77).regex(PIX_KEY_RE, 'a Pix key: CPF, CNPJ, +phone, e-mail or EVP'))
      .min(1)
      .max(5)
      .optional(),
    name: z.string().trim().min(1).max(25).optional(),
    cnpj: z.string().refine(isValidCnpj, 'a CNPJ of 14 digits with valid check digits').optional(),
    openingBalanceCents: z.number().int().min(0).max(1e15).optional(),
  })
  .strict();

function accountJson(ctx: SandboxContext, account: SandboxAccount) {
  const cents = accountBalanceCents(ctx, account);
  return {
    id: account.id,
    clientId: account.clientId,
    keys: account.keys,
    name: account.name,
    cnpj: account.cnpj,
    conta: account.conta,
    certificateSha256: account.certificateSha256 ?? null,
    balanceCents: cents,
    saldo: signedValor(cents),
  };
}

export function accountRoutes(ctx: SandboxContext): Router {
  const router = Router();

  router.post('/', async (req, res) => {
    const input = parseBody(newAccountSchema, req.body ?? {});
    const { account, clientSecret, certificate } = await ctx.accounts.create(input, ctx.now(), ctx.certificates);
    ctx.journal.account(account);
    // The id and keys only: neither the client secret nor the certificate's key reaches the log.
    ctx.logger.info({ accountId: account.id, keys: account.keys }, 'account created');
    res.status(201).json({
      ...accountJson(ctx, account),
      key: account.keys[0],
      clientSecret,
      certificatePem: certificate.certificate,
      privateKeyPem: certificate.privateKey,
    });
  });

  router.post('/:id/secret', (req, res) => {
    const rotated = ctx.accounts.rotateSecret(req.params.id);
    if (!rotated)
      throw new SandboxHttpError(404, 'ACCOUNT_NOT_FOUND', `no created account ${req.params.id.slice(0, 40)}`);
    ctx.journal.account(rotated.account);
    ctx.logger.info({ accountId: rotated.account.id }, 'account client secret rotated');
    res.json({ id: rotated.account.id, clientId: rotated.account.clientId, clientSecret: rotated.clientSecret });
  });

  router.get('/', (_req, res) => {
    res.json({ accounts: ctx.accounts.all().map((a) => accountJson(ctx, a)) });
  });

  router.get('/:id', (req, res) => {
    const account = ctx.accounts.get(req.params.id);
    if (!account) throw new SandboxHttpError(404, 'ACCOUNT_NOT_FOUND', `no account ${req.params.id.slice(0, 40)}`);
    res.json(accountJson(ctx, account));
  });

  return router;
}
