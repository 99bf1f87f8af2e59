/**
 * Refunds of the application API: POST /charges/{id}/refund starts a RefundLifecycle with
 * Update-With-Start; its update answers once the shares are reserved (or why not), so the
 * answer and the ledger agree. The refund then completes in the background; its status shows
 * on the charge (`refunds[]`, `refundedAmountCents`) and a `charge.refunded` event is sent.
 */
import type { ApplicationFailure, Client } from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import { refundStore, type Refund } from '../../db/refunds';
import { merchantStore } from '../../db/identity';
import type { Charge } from '../../db/charges';
import { moneyOutRefusal } from '../../core/identity/moneyOut';
import { mayBePayersKey, returnedByDevolucao } from '../../core/refunds/destination';
import { refundLifecycleWorkflow, refundWorkflowId, requestRefundUpdate } from '../../workflows/refunds/definitions';
import { RefundFailureTypes, type RefundInput } from '../../workflows/refunds/types';
import { paidMoney } from '../../core/refunds/paid';
import { ApiError, errors } from '../errors/apiError';
import { keyBoundTo, temporalErrorToApi } from '../temporal/temporalErrors';
import { updateWithStartOrJoin } from '../../core/temporal/updateWithStart';

export const refundErrors = {
  notRefundable: (status: string) =>
    new ApiError(409, 'CHARGE_NOT_REFUNDABLE', `the charge is ${status}; only a PAID charge can be refunded`, {
      status,
    }),
  destinationRequired: () =>
    errors.validation('request body is invalid', {
      fields: [
        {
          field: 'destination',
          message:
            "a boleto paid by barcode is refunded by Pix: give a Pix key of the boleto's payer (pixKey, pixKeyType, name)",
        },
      ],
    }),
  destinationNotAllowed: () =>
    errors.validation('request body is invalid', {
      fields: [
        { field: 'destination', message: 'a payment made by Pix is returned to its payer (devolução): no destination' },
      ],
    }),
  destinationNotPayer: () =>
    new ApiError(
      422,
      'REFUND_DESTINATION_NOT_PAYER',
      "a boleto is refunded only to a Pix key of its payer (the document it was issued to); this key's owner is someone else",
    ),
  destinationNotFound: () =>
    new ApiError(422, 'PIX_KEY_NOT_FOUND', 'the Pix key was not found in the Pix directory (DICT)'),
  merchantInactive: () =>
    new ApiError(409, 'MERCHANT_INACTIVE', 'the merchant is not active; no money can leave its balance'),
  exceedsPaid: (refundableCents: number) =>
    new ApiError(
      409,
      'REFUND_EXCEEDS_PAID_AMOUNT',
      `at most ${refundableCents} cents of this charge can still be refunded`,
      { refundableCents },
    ),
  infractionOpen: () =>
    new ApiError(
      409,
      'REFUND_INFRACTION_OPEN',
      'this charge has an open Pix infraction (MED): it cannot be refunded until the infraction is decided; nothing was refunded',
    ),
  insufficientBalance: (merchantId: string | null, ownAccount = false) =>
    new ApiError(
      409,
      'INSUFFICIENT_BALANCE_FOR_REFUND',
      ownAccount
        ? 'the balance in your own PSP account does not cover this refund: a devolução takes money only from the account that received the Pix, and the shares the PSP passed on (split partners, the platform fee) are not taken back; nothing was refunded'
        : 'the available balance does not cover this refund; nothing was refunded',
      { merchantId },
    ),
};

export interface RefundView {
  id: string;
  amountCents: number;
  reason: string;
  status: 'PROCESSING' | 'SUCCEEDED' | 'FAILED';
  failureCode: string | null;
  failureReason: string | null;
  endToEndId: string | null;
  createdAt: string;
  settledAt: string | null;
}

export function presentRefund(r: Refund): RefundView {
  return {
    id: r.id,
    amountCents: r.amountCents,
    reason: r.reason,
    status: r.status,
    failureCode: r.failureCode,
    failureReason: r.failureReason,
    endToEndId: r.endToEndId,
    createdAt: r.createdAt.toISOString(),
    settledAt: r.settledAt?.toISOString() ?? null,
  };
}

/** The refunds of these charges, oldest first, by charge id (one query for a page of charges). */
export async function refundsOf(chargeIds: string[]): Promise<Map<string, Refund[]>> {
  const byCharge = new Map<string, Refund[]>(chargeIds.map((id) => [id, []]));
  if (chargeIds.length === 0) return byCharge;
  for (const r of await refundStore.refundsOfCharges(chargeIds)) byCharge.get(r.chargeId)?.push(r);
  return byCharge;
}

export class RefundService {
  constructor(private readonly deps: { sequelize: Sequelize; temporal: Client; taskQueue: string }) {}

  /** What can still be refunded: the paid amount less every refund not FAILED. */
  async refundableCents(charge: Charge): Promise<number> {
    return paidMoney(charge).amountCents - (await refundStore.refundTotal(this.deps.sequelize, charge.id, 'committed'));
  }

  /**
   * Only a paid charge can be refunded (checked again, under lock, when reserving): a payment
   * made by Pix goes back to its payer (devolução); a boleto paid by barcode to a Pix key of its
   * payer, which the directory confirms when reserving.
   */
  assertRefundable(charge: Charge, destination: RefundInput['destination']): void {
    const status = charge.status === 'CANCELLED' ? 'CANCELED' : charge.status;
    if (charge.status !== 'PAID') throw refundErrors.notRefundable(status);
    if (charge.method !== 'BOLETO' && !charge.endToEndId) throw refundErrors.notRefundable(status);
    if (returnedByDevolucao(charge)) {
      if (destination) throw refundErrors.destinationNotAllowed();
      return;
    }
    if (!destination) throw refundErrors.destinationRequired();
    const payerDocument = charge.payerDetails?.taxId;
    if (!payerDocument) throw refundErrors.notRefundable(status);
    if (!mayBePayersKey(destination, payerDocument)) throw refundErrors.destinationNotPayer();
  }

  /** Whether money may leave the merchant now; checked again under the merchant row's lock when reserving. */
  async assertMerchantMayRefund(merchantId: string): Promise<void> {
    const held = moneyOutRefusal(await merchantStore.findMerchant(merchantId));
    if (held === 'MERCHANT_INACTIVE') throw refundErrors.merchantInactive();
    if (held === 'WITHDRAWAL_FROZEN') throw errors.withdrawalFrozen();
  }

  /** Whether refund `refundId` (an idempotency claim's resource id) was reserved for this charge. */
  async madeUnder(chargeId: string, refundId: string): Promise<boolean> {
    const refund = await refundStore.findRefund(refundId);
    return refund?.chargeId === chargeId;
  }

  async request(
    charge: Charge,
    refundId: string,
    body: { amountCents?: number; reason: string; destination?: RefundInput['destination'] },
    idempotencyKey: string,
    userId: string,
  ): Promise<void> {
    this.assertRefundable(charge, body.destination);
    const amountCents = body.amountCents ?? (await this.refundableCents(charge));
    if (amountCents <= 0) throw refundErrors.exceedsPaid(0);
    try {
      await updateWithStartOrJoin(this.deps.temporal, refundLifecycleWorkflow, requestRefundUpdate, {
        workflowId: refundWorkflowId(refundId),
        taskQueue: this.deps.taskQueue,
        args: [
          {
            refundId,
            chargeId: charge.id,
            amountCents,
            reason: body.reason,
            idempotencyKey,
            requestedBy: userId,
            destination: body.destination ?? null,
          } satisfies RefundInput,
        ],
        merchantId: charge.merchantId,
        initialStatus: 'RESERVING',
      });
    } catch (err) {
      // The key already made a refund of this charge: the charge view the route answers shows it.
      if (keyBoundTo(err)) return;
      throw mapRefundError(err);
    }
  }
}

function mapRefundError(err: unknown): unknown {
  const detailsOf = (failure: ApplicationFailure) => (failure.details?.[0] ?? {}) as Record<string, unknown>;
  return temporalErrorToApi(err, {
    failures: {
      [RefundFailureTypes.notRefundable]: (f) => refundErrors.notRefundable(String(detailsOf(f).status ?? 'not PAID')),
      [RefundFailureTypes.exceedsPaid]: (f) => refundErrors.exceedsPaid(Number(detailsOf(f).refundableCents ?? 0)),
      [RefundFailureTypes.insufficientBalance]: (f) =>
        refundErrors.insufficientBalance(
          (detailsOf(f).merchantId as string | null) ?? null,
          detailsOf(f).ownAccount === true,
        ),
      [RefundFailureTypes.merchantInactive]: () => refundErrors.merchantInactive(),
      [RefundFailureTypes.infractionOpen]: () => refundErrors.infractionOpen(),
      [RefundFailureTypes.merchantFrozen]: () => errors.withdrawalFrozen(),
      [RefundFailureTypes.destinationNotFound]: () => refundErrors.destinationNotFound(),
      [RefundFailureTypes.destinationNotPayer]: () => refundErrors.destinationNotPayer(),
    },
    otherFailure: () =>
      errors.unavailable('the refund could not be reserved; nothing was refunded, retry with the same idempotency key'),
    unavailable: 'the workflow service is unavailable; retry with the same idempotency key',
  });
}
