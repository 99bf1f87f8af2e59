/**
 * What a send notice (the PSP's webhook about a Pix we sent: Efí's `tipo: SOLICITACAO` entries)
 * leads to. The notice's content moves no money: it names an idEnvio, and the PSP's record for
 * it (GET by idEnvio, through the one transfer path's look-up) decides everything.
 *
 * - The send's owner still reserved and its workflow gone (terminated, lost): repaired now by
 *   the janitor's own reconcile (repair.ts), instead of at the janitor's next run. A workflow that
 *   runs owns its money and reads the outcome itself: left alone.
 * - A completed send its recipient sent back (Efí's `devolucoes`): credited back to who funded
 *   it, once per devolução (ledger key), never more than was sent, and only once the send is
 *   settled here (a return seen before our settle waits for it: retried).
 * - A send Efí did not make (NAO_REALIZADO, by its record) whose notice gave an ISO 20022 reason:
 *   Efí's reads carry no reason, so the row released by the record says only that the recipient's
 *   side refused; the notice's reason then makes that label precise (AC03: INVALID_PIX_KEY…). A
 *   label only, on a row already released: no money moves, and a precise code is never replaced.
 * - Refunds to a payer's key that come back are not credited automatically: alerted for a person
 *   (their money was split among who funded the refund).
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Logger } from 'pino';
import type { Sequelize } from 'sequelize';
import { referenceOfIdEnvio } from '../../core/pix/apiPixIds';
import { accounts } from '../../core/ledger/accounts';
import { move, movements } from '../../core/ledger/postings';
import type { PixProvider } from '../../core/provider';
import { describeTransferFailure, transferFailureOfIsoReason } from '../../core/transfers/failures';
import { payoutStore } from '../../db/payouts';
import { refundStore } from '../../db/refunds';
import { withdrawalStore } from '../../db/withdrawals';
import { writeLedgerEntry } from '../ledger/ledgerWriter';
import { createReconciler } from './repair';
import { createTransferPath } from './transferPath';

/** What a NAO_REALIZADO without a reason is released as (transferFailureOfIsoReason of nothing). */
const GENERIC_REFUSAL = transferFailureOfIsoReason(null);

export interface SentPixDeps {
  sequelize: Sequelize;
  provider: PixProvider;
  logger: Logger;
}

export type SentPixOutcome =
  | 'NOT_OURS'
  | 'NO_RECORD'
  | 'LEFT_TO_ITS_WORKFLOW'
  | 'REPAIRED'
  | 'SETTLED'
  | 'RELEASED'
  | 'RETURN_CREDITED'
  | 'RETURN_NEEDS_A_PERSON'
  | 'REASON_REFINED';

/** Whose send it is: a withdrawal, a payout item (of a batch), or none of ours we can credit. */
type Owner =
  | { type: 'withdrawal'; id: string; merchantId: string; sentCents: number; settled: boolean; reserved: boolean }
  | {
      type: 'payout_item';
      id: string;
      batchId: string;
      merchantId: string;
      sentCents: number;
      settled: boolean;
      reserved: boolean;
    };

export function createSentPixActivities(deps: SentPixDeps) {
  const { sequelize, logger } = deps;
  const transfers = createTransferPath(deps.provider, logger);
  const reconciler = createReconciler(deps);

  async function ownerOf(reference: string): Promise<Owner | null> {
    const withdrawal = await withdrawalStore.findWithdrawal(reference);
    if (withdrawal)
      return {
        type: 'withdrawal',
        id: withdrawal.id,
        merchantId: withdrawal.merchantId,
        sentCents: withdrawal.amountCents,
        settled: withdrawal.status === 'COMPLETED',
        reserved: withdrawal.status === 'PROCESSING',
      };
    const item = await payoutStore.findItem(reference);
    if (item)
      return {
        type: 'payout_item',
        id: item.id,
        batchId: item.batchId,
        merchantId: item.merchantId,
        sentCents: item.amountCents,
        settled: item.status === 'PAID',
        reserved: item.status === 'SENDING',
      };
    return null;
  }

  /** Follows one send notice (see the file comment). */
  async function followSentPix(args: {
    idEnvio: string;
    /** The notice's ISO 20022 reason (gnExtras.erro.codigo), a label only. */
    reason?: string | null;
  }): Promise<{ outcome: SentPixOutcome; credited: number }> {
    const reference = referenceOfIdEnvio(args.idEnvio);
    if (!reference) return { outcome: 'NOT_OURS', credited: 0 };
    const owner = await ownerOf(reference);
    if (!owner) return followRefund(reference);
    // The PSP's record first: amount and reference checked by the transfer path.
    const known = await transfers.lookup({ reference, amountCents: owner.sentCents });
    if (!known) return { outcome: 'NO_RECORD', credited: 0 };
    if (owner.reserved) {
      const outcome = await repairIfStopped(owner);
      // Its workflow settles or releases it in a moment; a reason or a return to apply waits for that.
      const more =
        (known.kind === 'REFUSED' && !!args.reason) ||
        (known.kind === 'COMPLETED' && (known.transfer.returns?.length ?? 0) > 0);
      if (outcome === 'LEFT_TO_ITS_WORKFLOW' && more)
        throw ApplicationFailure.retryable(`${owner.type} ${owner.id} is not settled here yet`, 'SentPixNotSettled');
      if (outcome === 'LEFT_TO_ITS_WORKFLOW' || !more) return { outcome, credited: 0 };
      Object.assign(owner, await ownerOf(reference)); // repaired: read again
    }
    if (known.kind === 'REFUSED') {
      const refined = args.reason ? await refineReason(owner, args.reason) : false;
      return { outcome: refined ? 'REASON_REFINED' : 'RELEASED', credited: 0 };
    }
    const returns = known.kind === 'COMPLETED' ? (known.transfer.returns ?? []) : [];
    if (returns.length === 0) return { outcome: owner.settled ? 'SETTLED' : 'RELEASED', credited: 0 };
    if (!owner.settled)
      throw ApplicationFailure.nonRetryable(
        `${owner.type} ${owner.id} was not paid here but the PSP reports its Pix sent back`,
        'SentPixConflict',
      );
    return { outcome: 'RETURN_CREDITED', credited: await creditReturns(owner, returns) };
  }

  /** A refund to a payer's key: its workflow settles it; a return is alerted for a person. */
  async function followRefund(reference: string): Promise<{ outcome: SentPixOutcome; credited: number }> {
    const refund = await refundStore.findRefund(reference);
    if (!refund?.destination) return { outcome: 'NOT_OURS', credited: 0 };
    const known = await transfers.lookup({ reference, amountCents: refund.amountCents });
    if (known?.kind === 'COMPLETED' && (known.transfer.returns?.length ?? 0) > 0) {
      logger.error({ refundId: reference }, 'ALERT: a Pix sent for a refund came back; credit it by hand');
      return { outcome: 'RETURN_NEEDS_A_PERSON', credited: 0 };
    }
    return { outcome: known ? 'LEFT_TO_ITS_WORKFLOW' : 'NO_RECORD', credited: 0 };
  }

  async function repairIfStopped(owner: Owner): Promise<SentPixOutcome> {
    const target =
      owner.type === 'withdrawal'
        ? { kind: 'withdrawal' as const, id: owner.id }
        : { kind: 'payout-batch' as const, id: owner.batchId };
    try {
      await reconciler.reconcileStopped(Context.current().client, target);
      return 'REPAIRED';
    } catch (err) {
      if (err instanceof ApplicationFailure && err.type === 'WorkflowStillRunning') return 'LEFT_TO_ITS_WORKFLOW';
      throw err;
    }
  }

  async function refineReason(owner: Owner, isoReason: string): Promise<boolean> {
    const code = transferFailureOfIsoReason(isoReason);
    if (code === GENERIC_REFUSAL) return false;
    const failure = { from: GENERIC_REFUSAL, ...describeTransferFailure(code) };
    return owner.type === 'withdrawal'
      ? withdrawalStore.refineFailure(sequelize, owner.id, failure)
      : payoutStore.refineItemFailure(sequelize, owner.id, failure);
  }

  /** Each devolução once (its ledger key), up to what was sent in all. */
  async function creditReturns(owner: Owner, returns: Array<{ id: string; amountCents: number }>): Promise<number> {
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

  return { followSentPix };
}

export type SentPixActivities = ReturnType<typeof createSentPixActivities>;
