/**
 * Charges of the application API: a signed-in member creates, lists, reads and cancels the
 * charges of their merchants. Same ChargeLifecycle, ledger, events and webhooks as the seller
 * routes (api/charges/issueCharge.ts); a charge made on one API reads on the other.
 * Another merchant's charge is 404, whatever the caller's roles elsewhere.
 */
import type { Client } from '@temporalio/client';
import { chargeStore, type Charge } from '../../db/charges';
import { memberStore, merchantStore } from '../../db/identity';
import type { Refund } from '../../db/refunds';
import { cancelChargeUpdate, chargeLifecycleWorkflow, chargeWorkflowId } from '../../workflows/charges/definitions';
import { chargeFee } from '../../core/charges/issueRules';
import { chargeExpiryOrInvalid, issueCharge } from './issueCharge';
import { ANY_ROLE, requireRole, roleErrors } from '../identity/auth/roles';
import { ApiError } from '../errors/apiError';
import { temporalErrorToApi } from '../temporal/temporalErrors';
import { workflowHandle } from '../../core/temporal/workflows';
import { boletoPdfInput } from '../boletos/boletoPdf';
import { presentAppCharge } from './presenter';
import { refundsOf } from '../refunds/service';
import type { CreateChargeBody, ListChargesQuery } from './schema';
import type { Sequelize } from 'sequelize';
import { boletoAccountCheck, boletoFeeCents } from '../connections/accountModel';
import type { AccountModelDefault } from '../../core/provider';

/** Who may create and cancel charges; every member may read. */
export const CHARGE_WRITERS = ['owner', 'admin', 'finance'] as const;

export const chargeErrors = {
  notFound: () => new ApiError(404, 'CHARGE_NOT_FOUND', 'charge not found'),
  notCancellable: (status: string) =>
    new ApiError(409, 'CHARGE_NOT_CANCELLABLE', `the charge is ${status}; only PENDING charges can be cancelled`, {
      status,
    }),
  notBoleto: () => new ApiError(409, 'CHARGE_NOT_BOLETO', 'the charge is not a boleto; it has no boleto PDF'),
};

export interface AppChargeServiceDeps {
  sequelize: Sequelize;
  /** ACCOUNT_MODEL_DEFAULT: whether a merchant with no connection may take a boleto (paid into the platform's account). */
  accountModelDefault?: AccountModelDefault;
  temporal: Client;
  taskQueue: string;
  defaultFee: { bps: number; fixedCents: number };
  defaultChargeTtlSeconds: number;
  /** Base of the boleto's pdfUrl (PUBLIC_BASE_URL). */
  publicBaseUrl: string;
}

/** A boleto without expiresAt is due in three days (Pix charges keep the configured default). */
export const DEFAULT_BOLETO_TTL_SECONDS = 3 * 86_400;

export class AppChargeService {
  constructor(private readonly deps: AppChargeServiceDeps) {}

  /** Issues charge `chargeId` (the idempotency claim's id) for a merchant the caller may charge for. */
  async create(body: CreateChargeBody, chargeId: string, resuming: boolean, idempotencyKey: string) {
    if (resuming) {
      const existing = await chargeStore.findCharge(chargeId);
      if (existing) return this.present(existing);
    }
    const boleto = body.method === 'BOLETO';
    const merchant = await merchantStore.findMerchant(body.merchantId);
    if (!merchant || !merchant.active) throw roleErrors.merchantNotFound();
    const boletoConnection = boleto
      ? await boletoAccountCheck(this.deps.sequelize, merchant.id, this.deps.accountModelDefault)
      : null;
    const expiresAt = chargeExpiryOrInvalid(
      body.expiresAt,
      new Date(),
      boleto ? DEFAULT_BOLETO_TTL_SECONDS : this.deps.defaultChargeTtlSeconds,
    );
    const merchantFee = chargeFee(merchant, this.deps.defaultFee, body.amountCents);
    const feeCents = boleto ? boletoFeeCents(boletoConnection, merchantFee) : merchantFee;
    const charge = await issueCharge(this.deps, {
      chargeId,
      merchantId: merchant.id,
      amountCents: body.amountCents,
      feeCents,
      description: body.description ?? null,
      externalRef: body.externalRef ?? null,
      metadata: body.metadata ?? null,
      splits: [],
      expiresAt: expiresAt.toISOString(),
      idempotencyKey,
      payer: body.payer ? { name: body.payer.name, taxId: body.payer.taxId, email: body.payer.email ?? null } : null,
      webhook: null,
      // Only boletos carry `method`: Pix inputs stay as they were before boletos.
      ...(boleto
        ? {
            method: 'BOLETO' as const,
            boleto: {
              finePercentBps: body.boleto?.finePercentBps ?? 0,
              monthlyInterestBps: body.boleto?.monthlyInterestBps ?? 0,
              graceDays: body.boleto?.graceDays ?? 0,
            },
          }
        : {}),
    });
    return this.present(charge);
  }

  async list(userId: string, query: ListChargesQuery) {
    const merchantId = query.merchantId ?? (await this.defaultMerchantOf(userId));
    await requireRole(userId, merchantId, ANY_ROLE);
    const { rows, count } = await chargeStore.listCharges({
      merchantId,
      status: query.status === 'CANCELED' ? 'CANCELLED' : query.status,
      method: query.method,
      externalRef: query.externalRef,
      createdFrom: query.createdFrom,
      createdTo: query.createdTo,
      limit: query.limit,
      offset: query.offset,
    });
    const refunds = await refundsOf(rows.map((c) => c.id));
    return {
      data: rows.map((row) => this.present(row, refunds.get(row.id))),
      pagination: {
        total: count,
        limit: query.limit,
        offset: query.offset,
        hasMore: query.offset + rows.length < count,
      },
    };
  }

  async read(userId: string, chargeId: string) {
    return this.view(await this.ownedCharge(userId, chargeId, ANY_ROLE));
  }

  /** The charge as answered, with its refunds. */
  async view(charge: Charge) {
    return this.present(charge, (await refundsOf([charge.id])).get(charge.id));
  }

  /** Cancels a PENDING charge; a charge already CANCELED answers as it is (repeatable). */
  async cancel(userId: string, chargeId: string, reason: string | undefined) {
    const charge = await this.ownedCharge(userId, chargeId, CHARGE_WRITERS);
    if (charge.status === 'CANCELLED') return this.view(charge);
    if (charge.status !== 'PENDING') throw chargeErrors.notCancellable(this.present(charge).status);
    // A subscription cycle's charge ends with its cycle: cancel the subscription instead.
    if (charge.subscriptionId) throw chargeErrors.notCancellable('a subscription cycle (cancel the subscription)');
    try {
      await workflowHandle(this.deps.temporal, chargeLifecycleWorkflow, chargeWorkflowId(charge.id)).executeUpdate(
        cancelChargeUpdate,
        { reason: reason ?? 'cancelled by the merchant' },
      );
    } catch (err) {
      // The run already closed (expired, cancelled or paid meanwhile), or refused the cancel.
      throw temporalErrorToApi(err, {
        otherFailure: () => chargeErrors.notCancellable('no longer PENDING'),
        notFound: () => chargeErrors.notCancellable('no longer PENDING'),
        unavailable: 'the workflow service is unavailable; retry',
      });
    }
    await chargeStore.reload(charge);
    // A payment that won the race leaves it PAID: say so instead of pretending.
    if ((charge.status as string) !== 'CANCELLED') throw chargeErrors.notCancellable(this.present(charge).status);
    return this.view(charge);
  }

  /** The boleto of a charge of the caller's merchants, as PDF (any member role). */
  async boletoPdf(userId: string, chargeId: string): Promise<Buffer> {
    const charge = await this.ownedCharge(userId, chargeId, ANY_ROLE);
    if (charge.method !== 'BOLETO' || !charge.boletoBarcode) throw chargeErrors.notBoleto();
    const merchant = await merchantStore.findMerchant(charge.merchantId);
    if (!merchant) throw chargeErrors.notFound();
    // Loaded on first use: pdfkit and the barcode renderer are some 20 MB of the API's resident
    // memory that no other route needs.
    const { renderBoletoPdf } = await import('../../core/boletos/pdf/renderBoletoPdf');
    return renderBoletoPdf(boletoPdfInput(charge, merchant));
  }

  private present(charge: Charge, refunds: Refund[] = []) {
    return presentAppCharge(charge, this.deps.publicBaseUrl, refunds);
  }

  /** The charge, when the caller is a member of its merchant with an allowed role; else 404/403. */
  async ownedCharge(userId: string, chargeId: string, allowed: readonly (typeof ANY_ROLE)[number][]): Promise<Charge> {
    const charge = await chargeStore.findCharge(chargeId);
    if (!charge) throw chargeErrors.notFound();
    try {
      await requireRole(userId, charge.merchantId, allowed);
    } catch (err) {
      // Not a member: the charge does not exist for this caller.
      if ((err as ApiError).code === 'MERCHANT_NOT_FOUND') throw chargeErrors.notFound();
      throw err;
    }
    return charge;
  }

  private async defaultMerchantOf(userId: string): Promise<string> {
    const memberships = await memberStore.membershipsOf(userId);
    const primary = memberships.find((m) => m.role === 'owner') ?? memberships[0];
    if (!primary) throw roleErrors.merchantNotFound();
    return primary.merchantId;
  }
}
