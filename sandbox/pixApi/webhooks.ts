/**
 * Webhook registrations of API Pix, one per chave of the token's account (accounts.ts) (PUT /webhook/{chave}
 * replaces it, so registering the same URL again at every start-up is harmless). Kept on disk
 * with the charges: a PSP does not forget where to notify.
 */
import type { SandboxAccount } from '../accounts';
import type { SandboxContext } from '../context';
import type { PixWebhookRecord } from '../state';
import { PixProblem } from './problem';

export function registerWebhook(
  ctx: SandboxContext,
  account: SandboxAccount,
  chave: string,
  webhookUrl: string,
): PixWebhookRecord {
  if (!ctx.accounts.owns(account, chave)) {
    throw new PixProblem(
      'WebhookOperacaoInvalida',
      'O parâmetro chave não corresponde a uma chave DICT pertencente a este usuário recebedor.',
      [{ propriedade: 'chave', razao: 'A chave não pertence a este usuário recebedor.', valor: chave.slice(0, 77) }],
    );
  }
  const known = ctx.state.pixWebhooks.get(chave);
  if (known?.webhookUrl === webhookUrl) return known;
  const webhook: PixWebhookRecord = { chave, webhookUrl, criacao: ctx.now().toISOString() };
  ctx.state.pixWebhooks.set(chave, webhook);
  ctx.journal.pixWebhook(webhook);
  // The URL may carry the client's secret path segment: the log names the key only.
  ctx.logger.info({ chave }, 'pix webhook registered');
  return webhook;
}

/** The webhook of one of the account's keys (another account's: not found). */
export function getWebhook(ctx: SandboxContext, account: SandboxAccount, chave: string): PixWebhookRecord {
  const webhook = ctx.state.pixWebhooks.get(chave);
  if (!webhook || !ctx.accounts.owns(account, chave))
    throw new PixProblem('WebhookNaoEncontrado', 'Nenhum webhook está estabelecido para esta chave.');
  return webhook;
}

export function removeWebhook(ctx: SandboxContext, account: SandboxAccount, chave: string): void {
  getWebhook(ctx, account, chave);
  ctx.state.pixWebhooks.delete(chave);
  ctx.journal.pixWebhookRemoved(chave);
  ctx.logger.info({ chave }, 'pix webhook removed');
}

/** WebhookCompleto: with the receiving user's CNPJ the schema requires, and the chave. */
export function webhookJson(ctx: SandboxContext, webhook: PixWebhookRecord) {
  return {
    webhookUrl: webhook.webhookUrl,
    chave: webhook.chave,
    cnpj: ctx.accounts.ownerOf(webhook.chave).cnpj,
    criacao: webhook.criacao,
  };
}
