/**
 * One cycle's money: its charge row and cobr issued, the cobr read in the terms the workflow's
 * retry rules decide on, a retry asked, the payment credited on the cobr's record through the one
 * credit of a Pix payment (activities/charges/settle.ts creditPayment), or the cycle failed.
 */
import crypto from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import type { Transaction } from 'sequelize';
import { addDays } from '../../core/boletos/dates';
import { chargeFee, undividedChargeFee } from '../../core/charges/issueRules';
import { cycleTxidFor } from '../../core/pix/apiPixIds';
import type { CycleAttemptStatus, ProviderCycleChargeStatus } from '../../core/pixAutomatico/types';
import { paidRecord } from '../../core/subscriptions/paidRecord';
import type { AttemptStatus, CobrOutcome } from '../../core/subscriptions/retries';
import { chargeStore } from '../../db/charges';
import { merchantStore } from '../../db/identity';
import { courseStore } from '../../db/marketplace';
import { subscriptionStore } from '../../db/subscriptions';
import { activityLog, recordAlert } from '../charges/alerts';
import { creditPayment } from '../charges/settle';
import type { CycleReading } from './contract';
import {
  atProvider,
  cycleOf,
  receiverOf,
  recurrencesOf,
  subscriptionOf,
  SubscriptionFailureTypes,
  type SubscriptionDeps,
} from './deps';

/** A cycle's charge stays open this long after its settlement date: the retries' 7 days and one more. */
const CYCLE_CHARGE_DAYS = 8;

/**
 * The charge id of a subscription's cycle, derived from both (a UUID, so the cobr's txid is
 * cycleTxidFor of it): a retried issue addresses the same charge and the same cobr.
 */
export function cycleChargeId(subscriptionId: string, cycle: number): string {
  const h = crypto
    .createHash('sha256')
    .update(`subscription-cycle:${subscriptionId.toLowerCase()}:${cycle}`)
    .digest('hex');
  // A version-4-shaped UUID (RFC 9562 variant bits), so every UUID check accepts it.
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export async function issueCycle(
  deps: SubscriptionDeps,
  args: { subscriptionId: string; cycle: number; dueDate: string; settlementDate: string },
): Promise<{ txid: string; chargeId: string }> {
  const row = await subscriptionOf(deps, args.subscriptionId);
  if (!row.idRec)
    throw ApplicationFailure.nonRetryable(
      `subscription ${row.id} has no recurrence`,
      SubscriptionFailureTypes.notFound,
    );
  const psp = await recurrencesOf(deps, row);
  // The cobr's recebedor: the recurrence's account's own (the platform's configured one, or the connection's).
  const receiver = await receiverOf(deps, row);
  const chargeId = cycleChargeId(row.id, args.cycle);
  const txid = cycleTxidFor(chargeId);
  const merchant = await merchantStore.findMerchant(row.merchantId);
  const course = await courseStore.findCourse(row.courseId);
  const description = `${course?.title ?? 'Assinatura'} (ciclo ${args.cycle})`;
  // The rows first: a Pix on the txid, or a webhookcobr, finds the cycle as soon as the cobr exists.
  await deps.sequelize.transaction(async (transaction) => {
    await chargeStore.createCycleChargeOnce(
      {
        id: chargeId,
        merchantId: row.merchantId,
        subscriptionId: row.id,
        amountCents: row.amountCents,
        // On a connected account none: the PSP pays the cobr whole into it (no Split Pix on a cobr).
        feeCents: undividedChargeFee(
          row.pspConnectionId,
          chargeFee(
            { pixFeeBps: merchant?.pixFeeBps ?? null, pixFeeFixedCents: merchant?.pixFeeFixedCents ?? null },
            deps.defaultFee,
            row.amountCents,
          ),
        ),
        description,
        txid,
        pspConnectionId: row.pspConnectionId,
        expiresAt: new Date(`${addDays(args.settlementDate, CYCLE_CHARGE_DAYS)}T23:59:59-03:00`),
      },
      transaction,
    );
    await subscriptionStore.insertCycleOnce(
      deps.sequelize,
      {
        subscriptionId: row.id,
        cycle: args.cycle,
        txid,
        chargeId,
        dueDate: args.dueDate,
        settlementDate: args.settlementDate,
        status: 'ISSUED',
      },
      transaction,
    );
  });
  const idRec = row.idRec;
  await atProvider(() =>
    psp.putCycleCharge(txid, {
      idRec,
      // The settlement date our calendar already moved to a business day (cycleDue).
      dueDate: args.settlementDate,
      amountCents: row.amountCents,
      adjustToBusinessDay: false,
      info: description.slice(0, 140),
      receiverAccount: receiver,
    }),
  );
  return { txid, chargeId };
}

const COBR_STATUS_TO_WIRE: Record<ProviderCycleChargeStatus, CobrOutcome['status']> = {
  CREATED: 'CRIADA',
  ACTIVE: 'ATIVA',
  PAID: 'CONCLUIDA',
  EXPIRED: 'EXPIRADA',
  REJECTED: 'REJEITADA',
  CANCELLED: 'CANCELADA',
};
const ATTEMPT_STATUS_TO_WIRE: Record<CycleAttemptStatus, AttemptStatus> = {
  REQUESTED: 'SOLICITADA',
  SCHEDULED: 'AGENDADA',
  PAID: 'PAGA',
  CANCELLED: 'CANCELADA',
  REJECTED: 'REJEITADA',
  EXPIRED: 'EXPIRADA',
};

async function cobrOf(deps: SubscriptionDeps, subscriptionId: string, cycle: number) {
  const row = await subscriptionOf(deps, subscriptionId);
  const c = await cycleOf(deps, subscriptionId, cycle);
  if (!c.txid)
    throw ApplicationFailure.nonRetryable(
      `cycle ${cycle} of subscription ${subscriptionId} has no cobr (paid by the first charge)`,
      SubscriptionFailureTypes.notFound,
    );
  const psp = await recurrencesOf(deps, row);
  const txid = c.txid;
  const cobr = await atProvider(() => psp.getCycleCharge(txid));
  // Ours, issued: the PSP not having it (yet) is retried, never taken as an outcome.
  if (!cobr) throw new Error(`the PSP has no cobr ${txid} (subscription ${subscriptionId}, cycle ${cycle})`);
  return { row, cycle: c, psp, cobr };
}

export async function readCycle(
  deps: SubscriptionDeps,
  args: { subscriptionId: string; cycle: number },
): Promise<CycleReading> {
  const { cobr } = await cobrOf(deps, args.subscriptionId, args.cycle);
  return {
    cobr: {
      status: COBR_STATUS_TO_WIRE[cobr.status],
      ...(cobr.rejectionCode ? { rejectionCode: cobr.rejectionCode } : {}),
    },
    attempts: cobr.attempts.map((a) => ({
      date: a.settlementDate,
      status: ATTEMPT_STATUS_TO_WIRE[a.status],
      ...(a.rejectionCode ? { rejectionCode: a.rejectionCode } : {}),
    })),
  };
}

export async function requestCycleRetry(
  deps: SubscriptionDeps,
  args: { subscriptionId: string; cycle: number; date: string },
): Promise<void> {
  const { cycle, psp } = await cobrOf(deps, args.subscriptionId, args.cycle);
  const txid = cycle.txid as string;
  await atProvider(() => psp.retryCycleCharge(txid, args.date));
  await deps.sequelize.transaction((transaction) =>
    subscriptionStore.markRetrying(deps.sequelize, args.subscriptionId, args.cycle, args.date, transaction),
  );
}

export async function settleCycle(
  deps: SubscriptionDeps,
  args: { subscriptionId: string; cycle: number },
): Promise<{ outcome: 'SETTLED' | 'ALREADY_PAID' | 'NOT_CONFIRMED' }> {
  const c = await cycleOf(deps, args.subscriptionId, args.cycle);
  if (c.status === 'PAID') return { outcome: 'ALREADY_PAID' };
  const charge = await chargeStore.findCharge(c.chargeId);
  if (!charge)
    throw ApplicationFailure.nonRetryable(
      `charge ${c.chargeId} of a cycle not found`,
      SubscriptionFailureTypes.notFound,
    );
  const { cobr } = await cobrOf(deps, args.subscriptionId, args.cycle);
  const paid = paidRecord(cobr);
  if (!paid || paid.amountCents !== charge.amountCents) {
    const message = !paid
      ? `the PSP says cobr ${cobr.txid} is ${cobr.status}, with no attempt paid`
      : `paid amount ${paid.amountCents} differs from the cycle charge's ${charge.amountCents}`;
    activityLog('error', `cycle payment not credited: ${message}`, { chargeId: charge.id });
    await recordAlert(
      deps.sequelize,
      charge.id,
      paid ? 'AMOUNT_MISMATCH' : 'NOT_CONFIRMED',
      paid?.endToEndId ?? null,
      paid?.amountCents ?? null,
      { message, providerStatus: cobr.status, subscriptionId: args.subscriptionId, cycle: args.cycle },
    );
    return { outcome: 'NOT_CONFIRMED' };
  }
  const markPaid = (transaction: Transaction) =>
    subscriptionStore
      .endCycle(
        deps.sequelize,
        args.subscriptionId,
        args.cycle,
        { status: 'PAID', paidAt: new Date(paid.paidAt) },
        transaction,
      )
      .then(() => undefined);
  const { outcome } = await creditPayment(
    deps.charges,
    charge.id,
    { paidAt: paid.paidAt, endToEndId: paid.endToEndId, payer: null },
    markPaid,
  );
  if (outcome === 'SETTLED') return { outcome };
  // Credited by an earlier attempt whose answer was lost: the cycle row follows.
  await deps.sequelize.transaction(markPaid);
  return { outcome: 'ALREADY_PAID' };
}

export async function failCycle(
  deps: SubscriptionDeps,
  args: { subscriptionId: string; cycle: number; reason: string; rejectionCode: string | null },
): Promise<void> {
  const c = await cycleOf(deps, args.subscriptionId, args.cycle);
  await deps.sequelize.transaction(async (transaction) => {
    await subscriptionStore.endCycle(
      deps.sequelize,
      args.subscriptionId,
      args.cycle,
      { status: 'FAILED', reason: args.reason, rejectionCode: args.rejectionCode },
      transaction,
    );
    const charge = await chargeStore.lockCharge(c.chargeId, transaction);
    if (charge?.status === 'PENDING')
      await chargeStore.updateCharge(charge, { status: 'EXPIRED', expiredAt: new Date() }, transaction);
  });
}
