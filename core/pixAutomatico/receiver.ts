/**
 * Where a Pix Automático cycle charge (cobr) pays into: its `recebedor` (`conta`, `agencia`,
 * `tipoConta`, the BCB's DadosBancariosRecebedor: `conta` and `tipoConta` required, `agencia`
 * optional), decided here for both account models, so the cycle activities ask one question.
 *
 * - The platform's account: the operator's configuration (PIX_AUTOMATICO_RECEIVER_*), or none.
 * - A connected merchant's own account: its connection's account number (psp_connections
 *   .account_number, `gateway connection register --account-number`), the same number Split Pix
 *   names the account by. The branch is left out (optional in the standard, and an Efí account is
 *   named by its number alone, as its Split Pix `favorecido.conta` is); the type is PAYMENT: Efí is a
 *   payment institution and its accounts are payment accounts. A connection registered without an
 *   account number has no receiver: its subscriptions are refused.
 */
import type { ReceiverAccount } from './types';

export type ReceiverDecision = { ok: true; receiver: ReceiverAccount } | { ok: false; reason: string };

export function receiverAccountOf(
  account:
    | { kind: 'platform'; configured: ReceiverAccount | null }
    | { kind: 'connected'; connectionId: string; accountNumber: string | null },
): ReceiverDecision {
  if (account.kind === 'platform')
    return account.configured
      ? { ok: true, receiver: account.configured }
      : {
          ok: false,
          reason:
            'no receiver account is configured for Pix Automático on the platform’s PSP account (PIX_AUTOMATICO_RECEIVER_ACCOUNT)',
        };
  if (!account.accountNumber)
    return {
      ok: false,
      reason: `PSP connection ${account.connectionId} has no account number, which a cycle charge names as its receiver: register the connection with --account-number (docs/operations.md)`,
    };
  return { ok: true, receiver: { account: account.accountNumber, branch: null, accountType: 'PAYMENT' } };
}
