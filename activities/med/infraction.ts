/**
 * What every MED step shares. Every state change of an infraction and the money move it causes
 * (block, unblock) and its event are written in one DB transaction under a lock on the
 * infraction row, keyed by ledger movement key and outbox dedup key, so a retried activity
 * changes nothing twice.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Logger } from 'pino';
import type { Sequelize, Transaction } from 'sequelize';
import { accounts } from '../../core/ledger/accounts';
import { medCancelDebt, move, movements, type LedgerEntry } from '../../core/ledger/postings';
import type { ClaimParty } from '../../core/med/claim';
import {
  isInfractionProvider,
  platformOnly,
  type InfractionProvider,
  type PixProvider,
  type PspAccounts,
} from '../../core/provider';
import { medInfractionStore, presentInfraction, type MedInfractionRow } from '../../db/med';
import { recordEvent } from '../events/outbox';
import { writeLedgerEntries } from '../ledger/ledgerWriter';

export interface MedActivityDeps {
  sequelize: Sequelize;
  /** The platform's account's provider. */
  provider: PixProvider;
  /** The worker's directory of PSP accounts (each connected merchant's own); absent: the platform's only. */
  accounts?: PspAccounts;
  logger: Logger;
}

/**
 * The disputed money leaves the merchant's available balance while the infraction is open
 * (available → blocked). The same for a connected merchant, whose ledger mirrors its own PSP
 * account: its PSP holds the disputed amount in that account (a cautionary block) until the
 * analysis, and the mirror records the same hold; no money moves between accounts, and none
 * through the platform's.
 */
export function block(row: MedInfractionRow, cents: number) {
  const { merchantAvailable, merchantBlocked } = accounts;
  return move(
    movements.medInfraction(row.id).block,
    merchantAvailable(row.merchant_id),
    merchantBlocked(row.merchant_id),
    cents,
  );
}

/** It comes back (blocked → available): rejected, nothing left to return, or its devolução not made. */
export function unblock(row: MedInfractionRow, cents: number) {
  const { merchantAvailable, merchantBlocked } = accounts;
  return move(
    movements.medInfraction(row.id).unblock,
    merchantBlocked(row.merchant_id),
    merchantAvailable(row.merchant_id),
    cents,
  );
}

/** Each party of the claim; MED 1's rows (and a connection's): the owner, holding blocked_cents and owing nothing. */
export function partiesOf(row: MedInfractionRow): ClaimParty[] {
  if (row.parties) return row.parties;
  const held = Number(row.blocked_cents);
  return [{ merchantId: row.merchant_id, shareCents: held, heldCents: held, owedCents: 0 }];
}

/**
 * Everything the claim holds goes back (blocked → available), one keyed transaction per party
 * (the owner's under MED 1's key, so a devolução's reservation that already unblocked it, or a
 * retry, changes nothing).
 */
export function unblockAll(row: MedInfractionRow): LedgerEntry[] {
  const keys = movements.medInfraction(row.id);
  return partiesOf(row)
    .filter((p) => p.heldCents > 0)
    .map((p) =>
      move(
        p.merchantId === row.merchant_id ? keys.unblock : keys.unblockParty(p.merchantId),
        accounts.merchantBlocked(p.merchantId),
        accounts.merchantAvailable(p.merchantId),
        p.heldCents,
      ),
    );
}

/** Every party's debt for the claim cancelled (owed +d, med claims −d), one keyed transaction each. */
export function cancelDebts(row: MedInfractionRow): LedgerEntry[] {
  return partiesOf(row)
    .filter((p) => p.owedCents > 0)
    .map((p) => medCancelDebt(movements.medInfraction(row.id).cancelDebt(p.merchantId), p.merchantId, p.owedCents));
}

/** The parties once their debts are cancelled (what they held stays as the case's record). */
export function withoutDebts(row: MedInfractionRow): ClaimParty[] | null {
  return row.parties ? row.parties.map((p) => ({ ...p, owedCents: 0 })) : null;
}

/**
 * The claim ends without a devolução (rejected, cancelled, nothing left to return, or the devolução
 * not made): every party's hold released and its debt cancelled. Keyed: a retry changes nothing.
 */
export async function releaseClaim(
  deps: MedActivityDeps,
  row: MedInfractionRow,
  transaction: Transaction,
): Promise<MedInfractionRow> {
  const { sequelize } = deps;
  await writeLedgerEntries(sequelize, [...unblockAll(row), ...cancelDebts(row)], transaction);
  const parties = withoutDebts(row);
  return parties ? medInfractionStore.setParties(sequelize, row, parties, transaction) : row;
}

/** The infractions of one PSP account: `connectionId` null, the platform's; else that connection's. */
export async function infractionProviderOf(
  deps: MedActivityDeps,
  connectionId: string | null,
): Promise<InfractionProvider> {
  const directory = deps.accounts ?? platformOnly(deps.provider);
  const { provider } = await directory.forConnection(connectionId);
  if (!isInfractionProvider(provider))
    throw ApplicationFailure.nonRetryable('the provider does not report Pix infractions', 'MedUnsupported');
  return provider;
}

export async function recordInfractionEvent(
  type: string,
  row: MedInfractionRow,
  transaction: Transaction,
  dedupKey?: string,
): Promise<void> {
  await recordEvent(
    {
      type,
      merchantId: row.merchant_id,
      aggregateType: 'med_infraction',
      aggregateId: row.id,
      dedupKey,
      payload: { ...presentInfraction(row) },
    },
    transaction,
  );
}

/** Runs `fn` in one DB transaction with the infraction's row locked. */
export async function locked<T>(
  deps: MedActivityDeps,
  infractionId: string,
  fn: (row: MedInfractionRow, transaction: Transaction) => Promise<T>,
): Promise<T> {
  const { sequelize } = deps;
  return sequelize.transaction(async (transaction) => {
    const row = await medInfractionStore.findInfraction(sequelize, infractionId, { transaction, lock: true });
    if (!row) throw ApplicationFailure.nonRetryable(`infraction ${infractionId} not found`, 'MedStateConflict');
    return fn(row, transaction);
  });
}
