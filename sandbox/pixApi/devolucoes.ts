/**
 * Devoluções through API Pix (PUT /pix/{e2eid}/devolucao/{id}). The money moves exactly as a /v1
 * payment-return moves it (transfers.ts createPaymentReturn, one store, one sum of what was
 * returned), so neither API can return the same money twice. What API Pix adds:
 *  - a devolução that would pass what is left of the payment is refused up front (400
 *    PixDevolucaoInvalida, as the document lists), not recorded as a failed transfer;
 *  - `id` is the client's, unique per e2eid: the same id with the same request answers the same
 *    devolução (no second return), with another request it is a 400;
 *  - it reads EM_PROCESSAMENTO for `settleMs`, then DEVOLVIDO, or NAO_REALIZADO with a motivo
 *    (the sandbox's rule: an amount ending in 13 cents is refused by the payer's institution);
 *  - a Pix older than 90 days cannot be returned (the document's window);
 *  - only the token's account's Pix can be returned, and a created account (accounts.ts) only
 *    within its balance.
 */
import { DEFAULT_ACCOUNT_ID, type SandboxAccount } from '../accounts';
import { accountBalanceCents } from '../balances';
import type { SandboxContext } from '../context';
import { findReceivedPixPaymentByE2e, type ReceivedPixPayment } from '../receivedPayments';
import type { DevolucaoRecord } from '../state';
import { createPaymentReturn, returnedCents } from '../transfers';
import { PixProblem } from './problem';
import { returnIdentification } from './pixView';
import { centsToValor, valorToCents } from './valor';

const RETURN_WINDOW_MS = 90 * 86_400_000;

export interface DevolucaoRequest {
  valor: string;
  natureza?: 'ORIGINAL' | 'RETIRADA';
  descricao?: string;
}

/** A Pix the account received (another account's is not found, as a PSP answers). */
export function findPaymentOr404(ctx: SandboxContext, account: SandboxAccount, endToEndId: string): ReceivedPixPayment {
  const payment = findReceivedPixPaymentByE2e(ctx, endToEndId);
  if (!payment || ctx.accounts.ownerOf(payment.pixKey).id !== account.id)
    throw new PixProblem('PixNaoEncontrado', `Nenhum Pix recebido com o endToEndId ${endToEndId}.`);
  return payment;
}

export function findDevolucao(
  ctx: SandboxContext,
  account: SandboxAccount,
  endToEndId: string,
  id: string,
): DevolucaoRecord {
  findPaymentOr404(ctx, account, endToEndId);
  const devolucao = ctx.state.devolucoes.get(`${endToEndId}/${id}`);
  if (!devolucao)
    throw new PixProblem('PixDevolucaoNaoEncontrada', `Nenhuma devolução ${id} para o Pix ${endToEndId}.`);
  return devolucao;
}

/** The devolução (new or the one this id already names) and whether this call created it. */
export function requestDevolucao(
  ctx: SandboxContext,
  account: SandboxAccount,
  settleMs: number,
  endToEndId: string,
  id: string,
  body: DevolucaoRequest,
): { devolucao: DevolucaoRecord; created: boolean } {
  const payment = findPaymentOr404(ctx, account, endToEndId);
  const amountCents = valorToCents(body.valor);
  const descricao = body.descricao ?? null;
  const known = ctx.state.devolucoes.get(`${endToEndId}/${id}`);
  if (known) {
    if (
      known.amountCents === amountCents &&
      known.descricao === descricao &&
      (body.natureza ?? 'ORIGINAL') === 'ORIGINAL'
    )
      return { devolucao: known, created: false };
    throw refused(
      'A presente requisição de devolução apresenta um id já utilizado por outra requisição de devolução para este e2eid.',
      'id',
      id,
    );
  }
  if (body.natureza === 'RETIRADA')
    throw refused(
      'Este Pix não é um Pix Saque nem um Pix Troco: a natureza da devolução é ORIGINAL.',
      'devolucao.natureza',
      'RETIRADA',
    );
  const now = ctx.now();
  if (now.getTime() - Date.parse(payment.paidAt) > RETURN_WINDOW_MS) {
    throw refused('A devolução viola a janela de 90 dias desde a liquidação do Pix.', 'e2eid', endToEndId);
  }
  const left = payment.amountCents - returnedCents(ctx, endToEndId);
  if (amountCents > left) {
    throw refused(
      `A devolução, com as anteriores, excederia o valor do Pix (resta ${centsToValor(left)}).`,
      'devolucao.valor',
      body.valor,
    );
  }
  // A created account's balance never goes below zero (the default account keeps its old rule: it may).
  if (account.id !== DEFAULT_ACCOUNT_ID && amountCents > accountBalanceCents(ctx, account))
    throw refused(
      'Saldo insuficiente na conta do usuário recebedor para esta devolução.',
      'devolucao.valor',
      body.valor,
    );
  // From here nothing awaits: the check above and the return below are one step.
  const { transfer } = createPaymentReturn(ctx, `api-pix-devolucao:${endToEndId}/${id}`, {
    reference: id,
    amountCents,
    endToEndId,
  });
  const devolucao: DevolucaoRecord = {
    endToEndId,
    id,
    transferId: transfer.id,
    rtrId: returnIdentification(transfer.endToEndId, transfer.id, now),
    amountCents,
    descricao,
    requestedAt: now.toISOString(),
    settlesAt: new Date(now.getTime() + settleMs).toISOString(),
  };
  ctx.state.devolucoes.set(`${endToEndId}/${id}`, devolucao);
  ctx.journal.devolucao(devolucao);
  ctx.logger.info(
    { endToEndId, devolucaoId: id, transferId: transfer.id, status: transfer.status },
    'devolução requested',
  );
  return { devolucao, created: true };
}

function refused(detail: string, propriedade: string, valor: string): PixProblem {
  return new PixProblem('PixDevolucaoInvalida', detail, [{ razao: detail, propriedade, valor }]);
}
