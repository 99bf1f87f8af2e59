import { accounts } from '../../../core/ledger/accounts';
import { move, movements } from '../../../core/ledger/postings';
import { writeLedgerEntry } from '../../ledger/ledgerWriter';
import type { SentPixDeps } from './deps';
import type { SendOwner } from '../../../db/transfers/sendOwner';

/** Each devolução once (its ledger key), up to what was sent in all. */
export async function creditReturns(
  deps: SentPixDeps,
  owner: SendOwner,
  returns: Array<{ id: string; amountCents: number }>,
): Promise<number> {
  const { sequelize, logger } = deps;
  let total = 0;
  let credited = 0;
  for (const r of returns) {
    total += r.amountCents;
    if (total > owner.sentCents) {
      logger.error({ [owner.type]: owner.id, returnId: r.id }, 'ALERT: the PSP reports more sent back than was sent');
      break;
    }
    const { applied } = await sequelize.transaction((transaction) =>
      writeLedgerEntry(
        sequelize,
        move(
          movements.sentPixReturn({ type: owner.type, id: owner.id }, r.id),
          accounts.providerClearing,
          accounts.merchantAvailable(owner.merchantId),
          r.amountCents,
        ),
        transaction,
      ),
    );
    if (applied) {
      credited += r.amountCents;
      logger.info(
        { [owner.type]: owner.id, returnId: r.id, amountCents: r.amountCents },
        'sent Pix returned: credited',
      );
    }
  }
  return credited;
}
