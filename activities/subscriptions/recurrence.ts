/**
 * The recurrence at the PSP: created with what the payer is asked by (journeys 2 and 3 a QR,
 * journey 1 a solicrec to the payer's PSP), read back on every notice, and cancelled by the
 * merchant (with the cycle charge still open).
 */
import { ApplicationFailure } from '@temporalio/activity';
import { documentType } from '../../core/documents';
import { recContractFor } from '../../core/pix/apiPixIds';
import type { RecurrenceDebtor, RecurrenceParty } from '../../core/pixAutomatico/types';
import { RETRY_POLICY_FROM_WIRE } from '../../core/pixAutomatico/wireNames';
import { ProviderError } from '../../core/provider';
import type { CancelledBy } from '../../core/subscriptions/states';
import { chargeStore } from '../../db/charges';
import { courseStore } from '../../db/marketplace';
import { subscriptionStore, type StoredSubscription } from '../../db/subscriptions';
import type { PreparedSubscription } from '../../workflows/subscriptions/types';
import type { RecurrenceReading } from './contract';
import {
  atProvider,
  receiverOf,
  recurrencesOf,
  subscriptionOf,
  SubscriptionFailureTypes,
  type SubscriptionDeps,
} from './deps';

/** The rules keep a journey-1 request open at most 30 days; ours asks for an answer within 7. */
const SOLICREC_DAYS = 7;
/** vinculo.objeto's limit. */
const OBJECT_MAX = 35;

export async function createRecurrence(
  deps: SubscriptionDeps,
  args: { subscriptionId: string; firstAttemptAt: string },
): Promise<PreparedSubscription> {
  const row = await subscriptionOf(deps, args.subscriptionId);
  const prepared = (idRec: string, qr: string | null, solic: string | null): PreparedSubscription => ({
    subscriptionId: row.id,
    idRec,
    state: row.status,
    qrCopyPaste: qr,
    authorizationRequestId: solic,
  });
  // A rerun after the row was written: what the payer is asked by exists already.
  if (row.idRec && (row.qrCopyPaste || row.journey === 'JOURNEY_1'))
    return prepared(row.idRec, row.qrCopyPaste, row.authorizationRequestId);

  const psp = await recurrencesOf(deps, row);
  // An account whose cycles could not be charged (no receiver account known) sells no subscription.
  await receiverOf(deps, row);
  const course = await courseStore.findCourse(row.courseId);
  const firstChargeTxid = row.journey === 'JOURNEY_3' ? await firstChargeTxidOf(row) : null;
  const location = row.journey === 'JOURNEY_1' ? null : await atProvider(() => psp.createLocation());
  const rec = await atProvider(() =>
    psp.createRecurrence(
      {
        contract: recContractFor(row.id),
        object: (course?.title ?? 'Assinatura').slice(0, OBJECT_MAX),
        debtor: debtorOf(row),
        firstDueDate: row.firstDueDate,
        lastDueDate: row.lastDueDate,
        period: row.interval,
        amountCents: row.amountCents,
        retryPolicy: RETRY_POLICY_FROM_WIRE[row.retryPolicy],
        locationId: location?.id ?? null,
        firstChargeTxid,
      },
      args.firstAttemptAt,
    ),
  );

  if (row.journey === 'JOURNEY_1') {
    const solic = await askPayerPsp(deps, row, rec.idRec);
    await subscriptionStore.recordRecurrence(deps.sequelize, row.id, {
      idRec: rec.idRec,
      authorizationRequestId: solic,
    });
    return prepared(rec.idRec, null, solic ?? row.authorizationRequestId);
  }
  // Journey 3's QR is the composite one (the first cob and the rec): read with the cob's txid.
  const read = await atProvider(() => psp.getRecurrence(rec.idRec, firstChargeTxid ? { firstChargeTxid } : undefined));
  const qr = read?.qrCode?.copyPaste ?? rec.qrCode?.copyPaste ?? null;
  await subscriptionStore.recordRecurrence(deps.sequelize, row.id, { idRec: rec.idRec, qrCopyPaste: qr });
  return prepared(rec.idRec, qr, null);
}

/**
 * Journey 1's solicrec. A retry after a lost answer is refused (one live request per rec): the
 * request the lost answer named is then unknown to us, and the rec's status says the rest.
 */
async function askPayerPsp(deps: SubscriptionDeps, row: StoredSubscription, idRec: string): Promise<string | null> {
  if (!row.payerAccount)
    throw ApplicationFailure.nonRetryable(
      `journey 1 subscription ${row.id} has no payer account`,
      SubscriptionFailureTypes.notFound,
    );
  const debtor = debtorOf(row);
  const psp = await recurrencesOf(deps, row);
  try {
    const solic = await psp.createAuthorizationRequest({
      idRec,
      expiresAt: new Date(Date.now() + SOLICREC_DAYS * 86_400_000).toISOString(),
      payerAccount: { ...row.payerAccount, documentType: debtor.documentType, document: debtor.document },
    });
    return solic.id;
  } catch (err) {
    if (err instanceof ProviderError && err.code === 'SOLICREC_REFUSED' && row.idRec === idRec) return null;
    return atProvider(() => Promise.reject(err));
  }
}

async function firstChargeTxidOf(row: StoredSubscription): Promise<string> {
  const charge = row.firstChargeId ? await chargeStore.findCharge(row.firstChargeId) : null;
  if (!charge?.pixTxid)
    throw ApplicationFailure.nonRetryable(
      `journey 3 subscription ${row.id} has no first charge with a txid`,
      SubscriptionFailureTypes.notFound,
    );
  return charge.pixTxid;
}

function debtorOf(row: StoredSubscription): RecurrenceDebtor {
  return { documentType: documentType(row.payerDocument) ?? 'CPF', document: row.payerDocument, name: row.payerName };
}

const CANCELLED_BY: Record<RecurrenceParty, CancelledBy> = {
  PAYER: 'PAYER',
  PAYER_PSP: 'PAYER',
  RECEIVER: 'MERCHANT',
  RECEIVER_PSP: 'PSP',
};

export async function readRecurrence(
  deps: SubscriptionDeps,
  args: { subscriptionId: string },
): Promise<RecurrenceReading> {
  const row = await subscriptionOf(deps, args.subscriptionId);
  if (!row.idRec)
    throw ApplicationFailure.nonRetryable(
      `subscription ${row.id} has no recurrence yet`,
      SubscriptionFailureTypes.notFound,
    );
  const psp = await recurrencesOf(deps, row);
  const idRec = row.idRec;
  const rec = await atProvider(() => psp.getRecurrence(idRec));
  // Ours, created and stored: the PSP losing it is for a person, retried meanwhile.
  if (!rec) throw new Error(`the PSP has no recurrence ${idRec} (subscription ${row.id})`);
  return {
    status: rec.status,
    cancelledBy: rec.ending?.kind === 'CANCELLED' && rec.ending.by ? CANCELLED_BY[rec.ending.by] : null,
    endingCode: rec.ending?.code ?? null,
    firstCharge: row.journey === 'JOURNEY_3' ? await firstChargeStatus(row) : null,
  };
}

async function firstChargeStatus(row: StoredSubscription): Promise<RecurrenceReading['firstCharge']> {
  const charge = row.firstChargeId ? await chargeStore.findCharge(row.firstChargeId) : null;
  if (!charge || charge.status === 'PENDING') return 'PENDING';
  return charge.status === 'PAID' ? 'PAID' : 'CLOSED';
}

/** The merchant cancels: the rec CANCELADA, an open cobr CANCELADA with its charge CANCELLED (a paid one stays paid). */
export async function cancelAtProvider(deps: SubscriptionDeps, args: { subscriptionId: string }): Promise<void> {
  const row = await subscriptionOf(deps, args.subscriptionId);
  const psp = await recurrencesOf(deps, row);
  const current = await subscriptionStore.currentCycle(deps.sequelize, row.id);
  if (current?.txid && (current.status === 'ISSUED' || current.status === 'RETRYING')) {
    const txid = current.txid;
    const cobr = await atProvider(() => psp.cancelCycleCharge(txid));
    if (cobr.status === 'CANCELLED') {
      await deps.sequelize.transaction(async (transaction) => {
        await subscriptionStore.endCycle(deps.sequelize, row.id, current.cycle, { status: 'CANCELLED' }, transaction);
        const charge = await chargeStore.lockCharge(current.chargeId, transaction);
        if (charge?.status === 'PENDING')
          await chargeStore.updateCharge(charge, { status: 'CANCELLED', cancelledAt: new Date() }, transaction);
      });
    }
  }
  if (row.idRec) {
    const idRec = row.idRec;
    await atProvider(() => psp.cancelRecurrence(idRec));
  }
}
