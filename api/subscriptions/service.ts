/**
 * Subscriptions paid by Pix Automático (issue 39), for both APIs: the application API's
 * /subscriptions (a signed-in member, for a merchant named in the body) and the partners'
 * /v1/subscriptions (the credential's merchant). The routes decide who the merchant is; this
 * service does the same work for both.
 *
 * Creating one, in order (the first failure answers):
 *   1. the price exists                       else 422 COURSE_PRICE_NOT_FOUND
 *   2. it is the merchant's                   else 422 COURSE_PRICE_NOT_OWNED_BY_MERCHANT (only the id
 *      sent is echoed: nothing of a foreign price leaks)
 *   3. active and its course PUBLISHED        else 422 COURSE_PRICE_INACTIVE (details.reason)
 *   4. its type is SUBSCRIPTION               else 422 COURSE_PRICE_NOT_SUBSCRIPTION
 *   5. firstDueDate within its journey's bounds else 400 VALIDATION_ERROR
 * then, journey 3, the first cycle's Pix charge through the one charge path (its id derived from
 * the subscription's, so a retried request joins it), then the workflow by Update-With-Start
 * (prepareSubscription answers once the recurrence exists at the PSP), then the row it recorded.
 */
import crypto from 'node:crypto';
import type { ApplicationFailure, Client } from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import type { Merchant } from '../../db/identity';
import { courseStore } from '../../db/marketplace';
import { subscriptionQueries } from '../../db/subscriptions';
import { chargeFee } from '../../core/charges/issueRules';
import { firstDueDateOf } from './dueDates';
import { brasiliaDate } from '../../core/subscriptions/issueWindow';
import { FINAL_SUBSCRIPTION_STATES } from '../../core/subscriptions/states';
import { presentSubscription, type SubscriptionView } from '../../core/subscriptions/view';
import { updateWithStartOrJoin } from '../../core/temporal/updateWithStart';
import { workflowHandle } from '../../core/temporal/workflows';
import {
  cancelSubscriptionUpdate,
  prepareSubscriptionUpdate,
  subscriptionLifecycleWorkflow,
  subscriptionWorkflowId,
} from '../../workflows/subscriptions/definitions';
import { SubscriptionFailureTypes, type SubscriptionLifecycleInput } from '../../workflows/subscriptions/types';
import { issueCharge } from '../charges/issueCharge';
import { accountModelErrors } from '../connections/accountModel';
import { ApiError, errors } from '../errors/apiError';
import { temporalErrorToApi } from '../temporal/temporalErrors';
import type { SubscriptionRequest } from './schema';

/**
 * The ApplicationFailure types the workflow's updates fail with: cancel of an ended subscription;
 * a recurrence the PSP did not create (its cause: the PSP's failure, as the charge activities type it).
 */
const { alreadyEnded: ALREADY_ENDED, notPrepared: NOT_PREPARED } = SubscriptionFailureTypes;

/** prepareSubscription failed: told apart by the PSP's failure it carries, as a failed charge issue is. */
function notPreparedAnswer(failure: ApplicationFailure): Error {
  const cause = failure.cause as { type?: string | null } | undefined;
  switch (cause?.type) {
    case 'PspConnectionRevoked':
      return accountModelErrors.connectionRevoked();
    case 'PspConnectionRequired':
      return accountModelErrors.connectionRequired();
    case 'ProviderUnavailable':
      return errors.providerError('the Pix provider is unavailable; the subscription was not created, retry later');
    case 'SubscriptionsUnavailable':
      // Not the PSP's moment: the account has no Pix Automático or no receiver account known (an
      // operator's fix, e.g. a connection without its account number); retrying will not help.
      return errors.providerError(
        'subscriptions are not available on your PSP account (no Pix Automático, or no receiver account registered for it); the subscription was not created',
      );
    default:
      return errors.providerError(
        'the Pix provider refused to create the recurrence; the subscription was not created',
      );
  }
}

/** Journey 3's first charge (the cob of the composite QR) is open for a day. */
const FIRST_CHARGE_TTL_MS = 86_400_000;

export const subscriptionErrors = {
  notFound: () => new ApiError(404, 'SUBSCRIPTION_NOT_FOUND', 'subscription not found'),
  alreadyEnded: (status: string) =>
    new ApiError(409, 'SUBSCRIPTION_ALREADY_ENDED', `the subscription already ended (${status})`, { status }),
  priceNotFound: (priceId: string) =>
    new ApiError(422, 'COURSE_PRICE_NOT_FOUND', `no course price ${priceId}`, { priceId }),
  priceNotOwned: (priceId: string) =>
    new ApiError(
      422,
      'COURSE_PRICE_NOT_OWNED_BY_MERCHANT',
      `course price ${priceId} does not belong to this merchant`,
      {
        priceId,
      },
    ),
  priceInactive: (priceId: string, reason: 'PRICE_INACTIVE' | 'COURSE_NOT_PUBLISHED', courseStatus: string) =>
    new ApiError(
      422,
      'COURSE_PRICE_INACTIVE',
      reason === 'PRICE_INACTIVE'
        ? `course price ${priceId} is inactive`
        : `the course of price ${priceId} is ${courseStatus}, not PUBLISHED`,
      { priceId, reason, courseStatus },
    ),
  priceNotSubscription: (priceId: string, type: string) =>
    new ApiError(422, 'COURSE_PRICE_NOT_SUBSCRIPTION', `course price ${priceId} is ${type}, not SUBSCRIPTION`, {
      priceId,
      type,
    }),
};

export interface SubscriptionServiceDeps {
  sequelize: Sequelize;
  temporal: Client;
  taskQueue: string;
  defaultFee: { bps: number; fixedCents: number };
  publicBaseUrl: string;
  /** NODE_ENV=production: returnUrl must be https. */
  production: boolean;
  /** The clock of today's date (firstDueDate) and the first charge's expiry; default the wall clock. */
  now?: () => Date;
}

export interface SubscriptionPage {
  data: SubscriptionView[];
  hasMore: boolean;
  next: string | null;
}

export class SubscriptionService {
  constructor(private readonly deps: SubscriptionServiceDeps) {}

  /** What the body alone decides, before an idempotency key is claimed: returnUrl's scheme. */
  checkUrls(body: SubscriptionRequest): void {
    if (!this.deps.production || body.returnUrl === undefined || body.returnUrl.startsWith('https://')) return;
    throw errors.validation('request body is invalid', {
      fields: [{ field: 'returnUrl', message: 'must be an https URL in production' }],
    });
  }

  /** Creates subscription `subscriptionId` (the idempotency claim's id) for `merchant`. */
  async create(
    merchant: Merchant,
    body: SubscriptionRequest,
    subscriptionId: string,
    resuming: boolean,
    idempotencyKey: string,
  ): Promise<SubscriptionView> {
    if (resuming) {
      const existing = await subscriptionQueries.findSubscription(this.deps.sequelize, subscriptionId, merchant.id);
      if (existing) return this.present(existing.id, merchant.id);
    }
    const price = (await courseStore.pricesForCheckout(this.deps.sequelize, [body.priceId])).get(
      body.priceId.toLowerCase(),
    );
    if (!price) throw subscriptionErrors.priceNotFound(body.priceId);
    if (price.merchantId !== merchant.id) throw subscriptionErrors.priceNotOwned(body.priceId);
    if (!price.active) throw subscriptionErrors.priceInactive(body.priceId, 'PRICE_INACTIVE', price.courseStatus);
    if (price.courseStatus !== 'PUBLISHED')
      throw subscriptionErrors.priceInactive(body.priceId, 'COURSE_NOT_PUBLISHED', price.courseStatus);
    if (price.type !== 'SUBSCRIPTION' || !price.interval || !price.retryPolicy)
      throw subscriptionErrors.priceNotSubscription(body.priceId, price.type);
    const nowMs = this.now();
    const firstDueDate = firstDueDateOf(body, brasiliaDate(nowMs));

    let firstChargeId: string | null = null;
    if (body.journey === 'JOURNEY_3') {
      // The cob of the composite QR, through the one charge path; a retry joins the same charge.
      const charge = await issueCharge(this.deps, {
        chargeId: subscriptionChargeIdOf(subscriptionId),
        merchantId: merchant.id,
        amountCents: price.amountCents,
        feeCents: chargeFee(merchant, this.deps.defaultFee, price.amountCents),
        description: price.courseTitle.slice(0, 255),
        externalRef: body.externalId ?? null,
        metadata: Object.keys(body.metadata).length ? body.metadata : null,
        splits: [],
        expiresAt: new Date(nowMs + FIRST_CHARGE_TTL_MS).toISOString(),
        idempotencyKey,
        // The payer is known: the charge records them (receipts, the student's name).
        payer: { name: body.payer.name, taxId: body.payer.document, email: null },
        webhook: null,
      });
      firstChargeId = charge.id;
    }

    const input: SubscriptionLifecycleInput = {
      subscriptionId,
      merchantId: merchant.id,
      courseId: price.courseId,
      priceId: price.id,
      courseTitle: price.courseTitle,
      journey: body.journey,
      interval: price.interval,
      retryPolicy: price.retryPolicy,
      amountCents: price.amountCents,
      firstDueDate,
      lastDueDate: null,
      payer: { name: body.payer.name, document: body.payer.document },
      payerAccount: body.payerAccount
        ? { ispb: body.payerAccount.ispb, branch: body.payerAccount.branch ?? null, account: body.payerAccount.account }
        : null,
      firstChargeId,
      externalId: body.externalId ?? null,
      metadata: body.metadata,
      returnUrl: body.returnUrl ?? null,
      idempotencyKey,
    };
    try {
      await updateWithStartOrJoin(this.deps.temporal, subscriptionLifecycleWorkflow, prepareSubscriptionUpdate, {
        workflowId: subscriptionWorkflowId(subscriptionId),
        taskQueue: this.deps.taskQueue,
        args: [input],
        merchantId: merchant.id,
        initialStatus: 'AWAITING_AUTHORISATION',
      });
    } catch (err) {
      throw temporalErrorToApi(err, {
        failures: { [NOT_PREPARED]: notPreparedAnswer },
        otherFailure: () =>
          errors.providerError('the Pix provider did not create the recurrence; retry with the same idempotency key'),
        unavailable: 'the workflow service is unavailable; retry with the same idempotency key',
      });
    }
    return this.present(subscriptionId, merchant.id);
  }

  /** `merchantId`'s subscription; another merchant's or an unknown one → 404. */
  async read(merchantId: string, id: string): Promise<SubscriptionView> {
    return this.present(id, merchantId);
  }

  /** The merchant whose subscription this is (any merchant's), for the application API's role check; else 404. */
  async merchantOf(id: string): Promise<string> {
    const row = await subscriptionQueries.findSubscription(this.deps.sequelize, id);
    if (!row) throw subscriptionErrors.notFound();
    return row.merchantId;
  }

  /**
   * Newest first by (created_at, id). A well-formed `after` that names no subscription of this
   * merchant → 404 SUBSCRIPTION_NOT_FOUND, as GET /subscriptions/{id} answers it.
   */
  async list(
    merchantId: string,
    query: { status?: SubscriptionView['status']; limit: number; after?: string },
  ): Promise<SubscriptionPage> {
    const after = query.after ?? null;
    if (after && !(await subscriptionQueries.findSubscription(this.deps.sequelize, after, merchantId)))
      throw subscriptionErrors.notFound();
    const rows = await subscriptionQueries.listSubscriptions(this.deps.sequelize, {
      merchantId,
      after,
      status: query.status,
      limit: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    const cycles = await subscriptionQueries.currentCycles(
      this.deps.sequelize,
      page.map((r) => r.id),
    );
    const data = page.map((r) => presentSubscription(r, cycles.get(r.id) ?? null, this.deps.publicBaseUrl));
    const hasMore = rows.length > query.limit;
    return { data, hasMore, next: hasMore ? data[data.length - 1].id : null };
  }

  /**
   * The merchant cancels: the workflow cancels the recurrence (and an open cycle charge) at the
   * PSP, then CANCELLED. Already ended (a final state, read first, or the workflow refusing with
   * SubscriptionAlreadyEnded, or gone) → 409 SUBSCRIPTION_ALREADY_ENDED.
   */
  async cancel(merchantId: string, id: string): Promise<SubscriptionView> {
    const row = await subscriptionQueries.findSubscription(this.deps.sequelize, id, merchantId);
    if (!row) throw subscriptionErrors.notFound();
    if (FINAL_SUBSCRIPTION_STATES.includes(row.status)) throw subscriptionErrors.alreadyEnded(row.status);
    try {
      await workflowHandle(this.deps.temporal, subscriptionLifecycleWorkflow, subscriptionWorkflowId(id)).executeUpdate(
        cancelSubscriptionUpdate,
      );
    } catch (err) {
      throw temporalErrorToApi(err, {
        failures: { [ALREADY_ENDED]: () => subscriptionErrors.alreadyEnded(row.status) },
        notFound: () => subscriptionErrors.alreadyEnded(row.status),
        unavailable: 'the workflow service is unavailable; retry',
      });
    }
    return this.present(id, merchantId);
  }

  private async present(id: string, merchantId: string): Promise<SubscriptionView> {
    const row = await subscriptionQueries.findSubscription(this.deps.sequelize, id, merchantId);
    if (!row) throw subscriptionErrors.notFound();
    const cycle = await subscriptionQueries.currentCycle(this.deps.sequelize, id);
    return presentSubscription(row, cycle, this.deps.publicBaseUrl);
  }

  private now(): number {
    return this.deps.now ? this.deps.now().getTime() : Date.now();
  }
}

/**
 * The id of journey 3's first charge, derived from the subscription id: a request that resumes an
 * idempotency claim joins the same charge workflow instead of issuing a second charge.
 */
export function subscriptionChargeIdOf(subscriptionId: string): string {
  const h = crypto.createHash('sha256').update(`subscription-charge:${subscriptionId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
