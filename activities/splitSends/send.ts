/**
 * The activity half of a split send (workflows/splitSends/splitSend.ts): the send of a PENDING
 * share from the charge owner's account (transferAccounts.ts finds the account by the row), then
 * the settle of the provider's answer (transferSteps.ts states the rules).
 *
 * The rule for a send the provider refuses for good (FAILED): nothing is released. The share is
 * the recipient's money sitting in the owner's account: giving it to the owner's available would
 * hand it to the wrong merchant. It stays in the owner's reserved (so the owner's mirror still
 * equals its saldo, and the owner cannot withdraw or pay out with it), the row keeps the PSP's
 * failure code, and an ALERT is logged for an operator, who corrects the recipient's key and
 * sends it (a new send is a new row) or returns it by hand.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { movements, splitSendSettle } from '../../core/ledger/postings';
import type { TransferRequest } from '../../core/provider';
import { splitSendStore, type SplitSend } from '../../db/splitSends';
import { SplitSendFailureTypes, type SplitSendStatus } from '../../workflows/splitSends/types';
import {
  resolveTransfer,
  sendTransfer,
  settleOrReleaseOne,
  type ReservedRow,
  type TransferDecision,
} from '../transfers/transferSteps';
import type { SplitSendDeps } from './deps';

type SplitSendStep = SplitSendStatus | 'UNCONFIRMED';

/** Sends a PENDING share and settles the known answer at once; UNCONFIRMED when the provider has no record yet. */
export async function sendSplitShare(deps: SplitSendDeps, args: { splitSendId: string }): Promise<SplitSendStep> {
  const row = await owedSend(deps, args.splitSendId);
  if (row.status !== 'PENDING') return row.status as SplitSendStatus;
  const sent = await sendTransfer(deps.transfers, transferOf(row), {
    // A later attempt may follow one whose answer was lost: the provider's record comes first.
    retry: Context.current().info.attempt > 1,
  });
  if (sent.kind === 'UNCONFIRMED') return 'UNCONFIRMED';
  return settleSplitShare(deps, row.id, sent);
}

/** After the grace period: the provider's record decides; with none, nothing was sent (FAILED, still reserved). */
export async function resolveSplitShare(deps: SplitSendDeps, args: { splitSendId: string }): Promise<SplitSendStep> {
  const row = await owedSend(deps, args.splitSendId);
  if (row.status !== 'PENDING') return row.status as SplitSendStatus;
  const decision = await resolveTransfer(deps.transfers, { reference: row.id, amountCents: row.amountCents });
  return settleSplitShare(deps, row.id, decision);
}

/** The Pix of a share: to the recipient's connection's key as it was when the charge was issued. */
export function transferOf(row: SplitSend): TransferRequest {
  return {
    reference: row.id,
    amountCents: row.amountCents,
    pixKey: row.pixKey,
    pixKeyType: row.pixKeyType,
    recipientName: row.recipientName,
    recipientDocument: row.recipientDocument,
  };
}

async function owedSend(deps: SplitSendDeps, id: string): Promise<SplitSend> {
  const row = await splitSendStore.findSend(deps.sequelize, id);
  if (!row) throw conflict(`split send ${id} not found`);
  // Owed only once its charge's payment was credited (the share is in the account then).
  if (row.status === 'AWAITING_PAYMENT') throw conflict(`split send ${id}: its charge ${row.chargeId} is not paid`);
  return row;
}

async function settleSplitShare(deps: SplitSendDeps, id: string, decision: TransferDecision): Promise<SplitSendStep> {
  const done = await settleOrReleaseOne(deps.sequelize, reservedShare(deps), { ...decision });
  if (!done) throw conflict(`split send ${id} not found`);
  return done.row.status as SplitSendStatus;

  function reservedShare(d: SplitSendDeps): ReservedRow<SplitSend> {
    return {
      lock: (transaction) => splitSendStore.lockSend(d.sequelize, id, transaction),
      stateOf: (row) => (row.status === 'SENT' ? 'SETTLED' : row.status === 'FAILED' ? 'RELEASED' : 'RESERVED'),
      apply: async (row, dec, transaction) => {
        await splitSendStore.finishSend(
          d.sequelize,
          row.id,
          dec.kind === 'SETTLE'
            ? {
                status: 'SENT',
                providerTransferId: dec.providerTransferId,
                endToEndId: dec.endToEndId,
                failureCode: null,
                failureReason: null,
              }
            : {
                status: 'FAILED',
                providerTransferId: dec.providerTransferId,
                endToEndId: null,
                failureCode: dec.failure.code,
                failureReason: dec.failure.reason,
              },
          transaction,
        );
        row.status = dec.kind === 'SETTLE' ? 'SENT' : 'FAILED';
      },
      // A refused share is not released: it stays reserved in the owner's account (this file's header).
      entry: (row, dec) =>
        dec.kind === 'SETTLE'
          ? splitSendSettle(movements.splitSend(row.id).settle, {
              ownerMerchantId: row.merchantId,
              recipientMerchantId: row.recipientMerchantId,
              cents: row.amountCents,
            })
          : null,
      recorded: async (row, dec) => {
        if (dec.kind === 'SETTLE') return;
        d.logger.error(
          {
            splitSendId: row.id,
            chargeId: row.chargeId,
            merchantId: row.merchantId,
            recipientMerchantId: row.recipientMerchantId,
            amountCents: row.amountCents,
            failureCode: dec.failure.code,
          },
          "ALERT: a split share could not be sent to its recipient; it stays reserved in the charge owner's account",
        );
      },
      describe: (row) => `split send ${row.id} is ${row.status}`,
      conflictType: SplitSendFailureTypes.stateConflict,
    };
  }
}

function conflict(message: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(message, SplitSendFailureTypes.stateConflict);
}
