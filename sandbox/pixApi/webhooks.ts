/**
 * Webhook registrations of API Pix, one per chave of the receiving user (PUT /webhook/{chave}
 * replaces it, so registering the same URL again at every start-up is harmless). Kept on disk
 * with the charges: a PSP does not forget where to notify.
 */
import type { SandboxContext } from '../context';
import { SANDBOX_MERCHANT } from '../payer';
import type { PixWebhookRecord } from '../state';
import { PixProblem } from './problem';

export function registerWebhook(
  ctx: SandboxContext,
  receivingKeys: ReadonlySet<string>,
  chave: string,
  webhookUrl: string,
): PixWebhookRecord {
  if (!receivingKeys.has(chave)) {
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

export function getWebhook(ctx: SandboxContext, chave: string): PixWebhookRecord {
  const webhook = ctx.state.pixWebhooks.get(chave);
  if (!webhook) throw new PixProblem('WebhookNaoEncontrado', 'Nenhum webhook está estabelecido para esta chave.');
  return webhook;
}

export function removeWebhook(ctx: SandboxContext, chave: string): void {
  getWebhook(ctx, chave);
  ctx.state.pixWebhooks.delete(chave);
  ctx.journal.pixWebhookRemoved(chave);
  ctx.logger.info({ chave }, 'pix webhook removed');
}

/** WebhookCompleto: with the receiving user's CNPJ the schema requires, and the chave. */
export function webhookJson(webhook: PixWebhookRecord) {
  return {
    webhookUrl: webhook.webhookUrl,
    chave: webhook.chave,
    cnpj: SANDBOX_MERCHANT.cnpj,
    criacao: webhook.criacao,
  };
}
