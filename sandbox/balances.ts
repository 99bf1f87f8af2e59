/**
 * Each account's balance, one sum over the sandbox's stores so nothing is counted twice: its
 * opening balance, plus (the default account only) what POST /sandbox/efi/saldo set, plus every
 * Pix it received (its cobs; for the default account also /v1 charges and boletos paid by Pix;
 * a cob with a Split Pix linked: its share only, and each repasse's account its own, efi/splits.ts),
 * minus every COMPLETED transfer it made (a devolução of a Pix it received, a send from one of its
 * keys accepted as REALIZADO: debited when accepted, as Efí holds the amount while it is
 * processed; a /v1 transfer is the default account's), plus what recipients returned of its sends,
 * plus (a created account only) the sends of other accounts to its keys once they settled
 * REALIZADO, less what it gave back of them: money moved inside the PSP; plus the boletos paid
 * that were issued on it through Efí's API Cobranças (efi/cobrancas.ts).
 *
 * The sum goes over every record, so each account's is kept between reads: until the state
 * changes (its revision, state.ts), the PSP's clock reaches the settlement of a send to one of its
 * keys, or the clock goes back. A send made from its keys brings the kept sum down by itself
 * (keepAfterSend): without that, each send of a payout batch summed every send made before it, and
 * a batch of 100,000 slowed to a few sends a second.
 */
import { DEFAULT_ACCOUNT_ID, type SandboxAccount } from './accounts';
import type { SandboxContext } from './context';
import { splitOfPayment } from './efi/splits';
import { listReceivedPixPayments } from './receivedPayments';
import type { EfiSendRecord, SandboxState } from './state';

/** An account's flows as last summed: at which revision and instant, and until when they hold. */
interface KeptFlows {
  cents: number;
  revision: number;
  at: number;
  /** The first settlement of a send to its keys still processing then (Infinity: none). */
  until: number;
}

const keptFlows = new WeakMap<SandboxState, Map<string, KeptFlows>>();

function keptOf(state: SandboxState): Map<string, KeptFlows> {
  let kept = keptFlows.get(state);
  if (!kept) keptFlows.set(state, (kept = new Map()));
  return kept;
}

export function accountBalanceCents(ctx: SandboxContext, account: SandboxAccount): number {
  const adjustment = account.id === DEFAULT_ACCOUNT_ID ? ctx.state.efiBalanceAdjustmentCents : 0;
  return account.openingBalanceCents + adjustment + flowsCents(ctx, account);
}

/** What the account's flows add to its opening balance (and the default account's adjustment). */
export function flowsCents(ctx: SandboxContext, account: SandboxAccount): number {
  const now = ctx.now().getTime();
  const kept = keptOf(ctx.state).get(account.id);
  if (kept && kept.revision === ctx.state.revision && now >= kept.at && now < kept.until) return kept.cents;
  const summed = sumFlows(ctx, account, now);
  keptOf(ctx.state).set(account.id, { ...summed, revision: ctx.state.revision, at: now });
  return summed.cents;
}

/**
 * A send just made (createSend), when the account of its payer key had its flows kept at
 * `revision`, the one before the send's writes: they hold the send's debit, if REALIZADO, and
 * end at its settlement if it goes to one of the same account's keys. Otherwise they are summed
 * again at the next read.
 */
export function keepAfterSend(ctx: SandboxContext, revision: number, send: EfiSendRecord): void {
  const payer = ctx.accounts.ownerOf(send.payerKey);
  const kept = keptOf(ctx.state).get(payer.id);
  if (!kept || kept.revision !== revision) return;
  if (send.outcome === 'REALIZADO') {
    kept.cents -= send.amountCents;
    if (ctx.accounts.createdOwnerOf(send.recipientKey)?.id === payer.id)
      kept.until = Math.min(kept.until, Date.parse(send.settlesAt));
  }
  kept.revision = ctx.state.revision;
}

function sumFlows(ctx: SandboxContext, account: SandboxAccount, now: number): { cents: number; until: number } {
  const { accounts, state } = ctx;
  const isMine = (key: string) => accounts.ownerOf(key).id === account.id;
  const keyOfPayment = new Map<string, string>();
  let received = 0;
  for (const p of listReceivedPixPayments(ctx)) {
    keyOfPayment.set(p.endToEndId, p.pixKey);
    const charge = p.cob ? state.charges.get(p.providerId) : undefined;
    const split = charge ? splitOfPayment(ctx, charge, accounts.ownerOf(p.pixKey).id, p.amountCents) : null;
    if (split) received += split.get(account.id) ?? 0;
    else if (isMine(p.pixKey)) received += p.amountCents;
  }
  const sendOfTransfer = new Map<string, EfiSendRecord>();
  for (const send of state.efiSends.values()) sendOfTransfer.set(send.transferId, send);
  let sent = 0;
  for (const t of state.transfers.values()) {
    if (t.status !== 'COMPLETED') continue;
    const send = sendOfTransfer.get(t.id);
    const key = send ? send.payerKey : t.returnOf ? keyOfPayment.get(t.returnOf) : undefined;
    // A /v1 transfer names no key of ours: the default account's, as before accounts existed.
    if (key === undefined ? account.id === DEFAULT_ACCOUNT_ID : isMine(key)) sent += t.amountCents;
  }
  let returned = 0;
  let internal = 0;
  let until = Infinity;
  for (const send of state.efiSends.values()) {
    const back = send.devolucoes.reduce((s, d) => s + d.amountCents, 0);
    if (isMine(send.payerKey)) returned += back;
    if (send.outcome !== 'REALIZADO' || accounts.createdOwnerOf(send.recipientKey)?.id !== account.id) continue;
    const settlesAt = Date.parse(send.settlesAt);
    if (now >= settlesAt) internal += send.amountCents - back;
    else until = Math.min(until, settlesAt);
  }
  // Boletos issued through Efí's API Cobranças on this account (efi/cobrancas.ts), once paid.
  for (const rec of state.boletos.values())
    if (rec.efi?.accountId === account.id && rec.boleto.payment) received += rec.boleto.payment.amountCents;
  return { cents: received - sent + returned + internal, until };
}
