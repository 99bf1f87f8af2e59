/**
 * Boletos of the application API. A boleto is a BOLETO charge (api/charges): one item is issued
 * directly through AppChargeService (the one issue path); several are stored as a batch and
 * issued by the BoletoBatch workflow, each through the same path. Reads and cancel reuse the
 * charge service, so a boleto answers exactly as GET /charges/{id} does. Another merchant's
 * boleto or batch is 404, whatever the caller's roles elsewhere.
 */
import type { AccountModelDefault } from '../../core/provider';
import crypto from 'node:crypto';
import type { Sequelize } from 'sequelize';
import type { Client } from '@temporalio/client';
import { parseBoletoCode } from '../../core/boletos';
import { endOfDueDateInBrasilia } from '../../core/boletos/dueTime';
import { boletoBatchStore, type BoletoBatch, type BoletoBatchItem } from '../../db/boletos';
import { merchantStore, type Merchant } from '../../db/identity';
import {
  acceptBoletoBatchUpdate,
  boletoBatchWorkflow,
  boletoBatchWorkflowId,
} from '../../workflows/boletos/definitions';
import { chargeExpiry, chargeFee, MAX_CHARGE_TTL_DAYS } from '../../core/charges/issueRules';
import { CHARGE_WRITERS, type AppChargeService } from '../charges/service';
import { ANY_ROLE, requireRole, roleErrors } from '../identity/auth/roles';
import { ApiError, errors } from '../errors/apiError';
import { temporalErrorToApi } from '../temporal/temporalErrors';
import { updateWithStartOrJoin } from '../../core/temporal/updateWithStart';
import type { CreateBoletosBody, ListBoletosQuery } from './schema';
import { boletoAccountCheck, boletoFeeCents } from '../connections/accountModel';

export const boletoErrors = {
  notFound: () => new ApiError(404, 'BOLETO_NOT_FOUND', 'boleto not found'),
  batchNotFound: () => new ApiError(404, 'BOLETO_BATCH_NOT_FOUND', 'boleto batch not found'),
  notCancellable: () =>
    new ApiError(
      409,
      'BOLETO_NOT_CANCELLABLE',
      'this boleto of the batch FAILED: it was never issued, so there is nothing to cancel',
    ),
};

/** Items issued at once by a batch. */
export const BOLETO_BATCH_CONCURRENCY = 10;

export interface BoletoServiceDeps {
  sequelize: Sequelize;
  temporal: Client;
  taskQueue: string;
  defaultFee: { bps: number; fixedCents: number };
  charges: AppChargeService;
  /** ACCOUNT_MODEL_DEFAULT: whether a merchant with no connection may take boletos (paid into the platform's account). */
  accountModelDefault?: AccountModelDefault;
  concurrency?: number;
}

export class BoletoService {
  constructor(private readonly deps: BoletoServiceDeps) {}

  /**
   * Decodes a code. Not 44/47 digits of a bank boleto → 400 naming `code`; a well-formed code
   * with a wrong check digit is an answer, not a bad request: 200 with valid false and which digit.
   */
  consult(code: string) {
    const parsed = parseBoletoCode(code);
    if (!parsed.kind || !parsed.barcode || !parsed.digitableLine) {
      throw errors.validation('code is not a boleto digitable line or barcode', {
        fields: parsed.errors.map((e) => ({ field: 'code', message: e.message })),
      });
    }
    return {
      valid: parsed.valid,
      type: parsed.kind,
      barcode: parsed.barcode,
      digitableLine: parsed.digitableLine,
      bankCode: parsed.bankCode as string,
      amountCents: parsed.amountCents ?? 0,
      dueDate: parsed.dueDate,
      errors: parsed.errors.map((e) => ({
        field: e.field as 'currency' | 'field1' | 'field2' | 'field3' | 'general',
        message: e.message,
      })),
    };
  }

  /** Pure checks before the idempotency claim: each due date within the charge bounds, named by row. */
  validate(body: CreateBoletosBody, now = new Date()): void {
    const fields: { field: string; rowIndex: number; message: string }[] = [];
    body.items.forEach((item, rowIndex) => {
      if (chargeExpiry(endOfDueDateInBrasilia(item.dueDate), now, 0)) return;
      fields.push({
        field: `items.${rowIndex}.dueDate`,
        rowIndex,
        message: `must be between today and ${MAX_CHARGE_TTL_DAYS} days from now`,
      });
    });
    if (fields.length)
      throw errors.validation('request body is invalid', {
        fields: fields.slice(0, 100),
        totalInvalidFields: fields.length,
      });
  }

  /** One item: the boleto now (201). Several: a batch, answered once stored (202). */
  async create(
    body: CreateBoletosBody,
    resourceId: string,
    resuming: boolean,
    key: string,
  ): Promise<{ status: number; body: unknown }> {
    if (body.items.length === 1) {
      const [item] = body.items;
      const charge = await this.deps.charges.create(
        {
          merchantId: body.merchantId,
          amountCents: item.amountCents,
          currency: 'BRL',
          description: item.description,
          method: 'BOLETO',
          expiresAt: endOfDueDateInBrasilia(item.dueDate),
          externalRef: item.externalRef,
          payer: item.payer,
          boleto: body.terms,
        },
        resourceId,
        resuming,
        key,
      );
      return { status: 201, body: { batchId: null, boletos: [charge] } };
    }
    const merchant = await merchantStore.findMerchant(body.merchantId);
    if (!merchant || !merchant.active) throw roleErrors.merchantNotFound();
    const connectionId = await boletoAccountCheck(this.deps.sequelize, merchant.id, this.deps.accountModelDefault);
    if (!resuming || !(await boletoBatchStore.findBatch(resourceId)))
      await this.stage(merchant, connectionId, body, resourceId, key);
    try {
      const accepted = await updateWithStartOrJoin(this.deps.temporal, boletoBatchWorkflow, acceptBoletoBatchUpdate, {
        workflowId: boletoBatchWorkflowId(resourceId),
        taskQueue: this.deps.taskQueue,
        args: [
          {
            batchId: resourceId,
            merchantId: merchant.id,
            itemsCount: body.items.length,
            concurrency: this.deps.concurrency ?? BOLETO_BATCH_CONCURRENCY,
          },
        ],
        merchantId: merchant.id,
        initialStatus: 'ACCEPTING',
      });
      return { status: 202, body: accepted };
    } catch (err) {
      const retry = 'the workflow service is unavailable; retry with the same idempotency key';
      throw temporalErrorToApi(err, { otherFailure: () => errors.unavailable(retry), unavailable: retry });
    }
  }

  private async stage(
    merchant: Merchant,
    connectionId: string | null,
    body: CreateBoletosBody,
    batchId: string,
    key: string,
  ): Promise<void> {
    const terms = body.terms ?? { finePercentBps: 0, monthlyInterestBps: 0, graceDays: 0 };
    await boletoBatchStore.stageBatch(
      this.deps.sequelize,
      {
        id: batchId,
        merchantId: merchant.id,
        idempotencyKey: key,
        status: 'PROCESSING',
        itemsCount: body.items.length,
        fineBps: terms.finePercentBps,
        interestMonthlyBps: terms.monthlyInterestBps,
        graceDays: terms.graceDays,
      },
      body.items.map((item, rowIndex) => ({
        id: crypto.randomUUID(),
        batchId,
        rowIndex,
        status: 'PENDING' as const,
        amountCents: item.amountCents,
        feeCents: boletoFeeCents(connectionId, chargeFee(merchant, this.deps.defaultFee, item.amountCents)),
        dueDate: item.dueDate,
        payerName: item.payer.name,
        payerTaxId: item.payer.taxId,
        payerEmail: item.payer.email ?? null,
        description: item.description ?? null,
        externalRef: item.externalRef ?? null,
      })),
    );
  }

  /** The merchant's BOLETO charges (the Charge object), newest first. */
  list(userId: string, query: ListBoletosQuery) {
    return this.deps.charges.list(userId, { ...query, method: 'BOLETO' });
  }

  async read(userId: string, id: string) {
    const charge = await this.ownedBoleto(userId, id, ANY_ROLE);
    return this.deps.charges.view(charge);
  }

  async batch(userId: string, batchId: string, page: { limit: number; offset: number }) {
    const batch = await this.ownedBatch(userId, batchId, ANY_ROLE);
    const [items, grouped] = await Promise.all([
      boletoBatchStore.itemsPage(batchId, page),
      boletoBatchStore.itemCounts(batchId),
    ]);
    const count = (s: string) => grouped.get(s) ?? 0;
    return {
      id: batch.id,
      merchantId: batch.merchantId,
      status: batch.status,
      itemsCount: batch.itemsCount,
      counts: {
        pending: count('PENDING'),
        issued: count('ISSUED'),
        failed: count('FAILED'),
        cancelled: count('CANCELLED'),
      },
      idempotencyKey: batch.idempotencyKey,
      createdAt: batch.createdAt.toISOString(),
      completedAt: batch.completedAt ? batch.completedAt.toISOString() : null,
      items: items.map(presentItem),
      pagination: {
        total: batch.itemsCount,
        limit: page.limit,
        offset: page.offset,
        hasMore: page.offset + items.length < batch.itemsCount,
      },
    };
  }

  /**
   * Cancels one boleto of a batch; `id` is the item id or its charge id. An issued boleto is
   * cancelled as POST /charges/{id}/cancel does (closed at the provider; 409 once paid); a row
   * not yet issued is cancelled before it is (the batch skips it); a FAILED row → 409.
   */
  async cancelItem(userId: string, batchId: string, id: string) {
    await this.ownedBatch(userId, batchId, CHARGE_WRITERS);
    const item = await boletoBatchStore.findItem(batchId, id);
    if (!item) throw boletoErrors.notFound();
    if (item.status === 'PENDING') {
      const changed = await boletoBatchStore.cancelPendingItem(item);
      if (changed) return { item: presentItem(item), charge: null };
    }
    if (item.status === 'FAILED') throw boletoErrors.notCancellable();
    if (!item.chargeId) return { item: presentItem(item), charge: null };
    const charge = await this.deps.charges.cancel(userId, item.chargeId, 'cancelled from its boleto batch');
    await boletoBatchStore.markItemCancelled(item);
    return { item: presentItem(item), charge };
  }

  private async ownedBatch(userId: string, batchId: string, allowed: typeof ANY_ROLE): Promise<BoletoBatch> {
    const batch = await boletoBatchStore.findBatch(batchId);
    if (!batch) throw boletoErrors.batchNotFound();
    await asNotFound(requireRole(userId, batch.merchantId, allowed), boletoErrors.batchNotFound);
    return batch;
  }

  private async ownedBoleto(userId: string, id: string, allowed: typeof ANY_ROLE) {
    const charge = await asNotFound(this.deps.charges.ownedCharge(userId, id, allowed), boletoErrors.notFound);
    if (charge.method !== 'BOLETO') throw boletoErrors.notFound();
    return charge;
  }
}

/** Not a member (or no such charge): the resource does not exist for this caller. */
async function asNotFound<T>(work: Promise<T>, notFound: () => ApiError): Promise<T> {
  try {
    return await work;
  } catch (err) {
    const code = (err as ApiError).code;
    if (code === 'MERCHANT_NOT_FOUND' || code === 'CHARGE_NOT_FOUND') throw notFound();
    throw err;
  }
}

function presentItem(item: BoletoBatchItem) {
  return {
    id: item.id,
    rowIndex: item.rowIndex,
    status: item.status,
    chargeId: item.chargeId ?? null,
    amountCents: item.amountCents,
    dueDate: item.dueDate,
    externalRef: item.externalRef,
    errorCode: item.errorCode ?? null,
    errorMessage: item.errorMessage ?? null,
    attempts: item.attempts,
  };
}
