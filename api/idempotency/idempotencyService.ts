/**
 * Idempotency keys, per merchant and scope. The first request with a key claims it (with the
 * resource id it will create); a replay with the same payload gets the stored answer; a
 * different payload gets 409 DUPLICATE_IDEMPOTENCY_KEY; a concurrent duplicate waits for the
 * first one. A claim whose holder died (lock expired) is taken over with the same resource id,
 * so the retry finishes the same work instead of doubling it. Keys expire after a set time.
 */
import crypto from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';
import { IdempotencyRecord } from '../../db/models';
import { affectedRows } from '../../db/affectedRows';
import { errors } from '../errors/apiError';

export type IdempotencyClaim =
  | { kind: 'owner'; resourceId: string; takenOver: boolean }
  | { kind: 'replay'; status: number; body: unknown; resourceId: string };

export interface IdempotencyOptions {
  ttlHours: number;
  lockSeconds?: number;
  waitMs?: number;
}

export function fingerprint(value: unknown): string {
  return crypto.createHash('sha256').update(canonicalJson(value)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value as object)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class IdempotencyService {
  private readonly lockSeconds: number;
  private readonly waitMs: number;

  constructor(
    private readonly sequelize: Sequelize,
    private readonly opts: IdempotencyOptions,
  ) {
    this.lockSeconds = opts.lockSeconds ?? 60;
    this.waitMs = opts.waitMs ?? 30_000;
  }

  async claim(args: { merchantId: string; scope: string; key: string; requestHash: string; newResourceId: string }): Promise<IdempotencyClaim> {
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const inserted = await this.sequelize.query<{ resource_id: string }>(
        `INSERT INTO idempotency_records (merchant_id, scope, key, request_hash, state, resource_id, locked_until, expires_at)
         VALUES (:merchantId, :scope, :key, :requestHash, 'IN_PROGRESS', :resourceId,
                 now() + make_interval(secs => :lockSeconds), now() + make_interval(hours => :ttlHours))
         ON CONFLICT (merchant_id, scope, key) DO NOTHING RETURNING resource_id`,
        {
          replacements: { ...args, resourceId: args.newResourceId, lockSeconds: this.lockSeconds, ttlHours: this.opts.ttlHours },
          type: QueryTypes.SELECT,
        },
      );
      if (inserted.length === 1) return { kind: 'owner', resourceId: args.newResourceId, takenOver: false };

      const existing = await IdempotencyRecord.findOne({ where: { merchantId: args.merchantId, scope: args.scope, key: args.key } });
      if (!existing) continue; // expired and deleted between our two statements: try again
      if (existing.expiresAt.getTime() <= Date.now()) {
        await this.sequelize.query(
          `DELETE FROM idempotency_records WHERE merchant_id = :merchantId AND scope = :scope AND key = :key AND expires_at <= now()`,
          { replacements: args },
        );
        continue;
      }
      if (existing.requestHash !== args.requestHash) throw errors.duplicateIdempotencyKey();
      if (existing.state === 'COMPLETED') {
        return { kind: 'replay', status: existing.responseStatus as number, body: existing.responseBody, resourceId: existing.resourceId };
      }
      if (existing.lockedUntil.getTime() <= Date.now()) {
        const [, taken] = await this.sequelize.query(
          `UPDATE idempotency_records SET locked_until = now() + make_interval(secs => :lockSeconds), updated_at = now()
           WHERE merchant_id = :merchantId AND scope = :scope AND key = :key AND state = 'IN_PROGRESS' AND locked_until = :lockedUntil`,
          { replacements: { ...args, lockSeconds: this.lockSeconds, lockedUntil: existing.lockedUntil } },
        );
        if (affectedRows(taken) === 1) return { kind: 'owner', resourceId: existing.resourceId, takenOver: true };
        continue;
      }
      if (Date.now() > deadline) {
        throw errors.unavailable('a request with this idempotency key is still in progress; retry later with the same key');
      }
      await sleep(100);
    }
  }

  async complete(args: { merchantId: string; scope: string; key: string; status: number; body: unknown }): Promise<void> {
    await IdempotencyRecord.update(
      { state: 'COMPLETED', responseStatus: args.status, responseBody: args.body },
      { where: { merchantId: args.merchantId, scope: args.scope, key: args.key } },
    );
  }

  /** Frees a key whose request created nothing (e.g. the provider refused), so the caller may retry with it. */
  async release(args: { merchantId: string; scope: string; key: string }): Promise<void> {
    await IdempotencyRecord.destroy({ where: { merchantId: args.merchantId, scope: args.scope, key: args.key, state: 'IN_PROGRESS' } });
  }
}


export interface IdempotentResult {
  status: number;
  body: unknown;
  replay: boolean;
}

/**
 * The one way a mutating route runs its work under an idempotency key:
 * claim → work(resourceId) → store the answer. Without a key the work simply runs.
 * A refusal (4xx) or provider failure (502) means nothing was created and frees the key; any
 * other failure keeps the claim so a retry resumes the same resource id instead of doubling it.
 */
export async function runIdempotent(
  service: IdempotencyService,
  ref: {
    merchantId: string;
    scope: string;
    key: string | undefined;
    request: unknown;
    newResourceId: string;
    /** What a replay may show: secrets shown once are stored redacted. */
    storedBody?: (body: unknown) => unknown;
  },
  work: (resourceId: string, resuming: boolean) => Promise<{ status: number; body: unknown }>,
): Promise<IdempotentResult> {
  if (!ref.key) return { ...(await work(ref.newResourceId, false)), replay: false };
  const keyRef = { merchantId: ref.merchantId, scope: ref.scope, key: ref.key };
  const claim = await service.claim({ ...keyRef, requestHash: fingerprint(ref.request), newResourceId: ref.newResourceId });
  if (claim.kind === 'replay') return { status: claim.status, body: claim.body, replay: true };
  try {
    const result = await work(claim.resourceId, claim.takenOver);
    await service.complete({ ...keyRef, status: result.status, body: ref.storedBody ? ref.storedBody(result.body) : result.body });
    return { ...result, replay: false };
  } catch (err) {
    // A refusal (4xx) or a provider failure (502) created nothing: free the key for a retry.
    // Anything else (503, crash) keeps the claim, so a retry resumes the same resource id.
    const status = (err as { status?: number })?.status;
    if (status !== undefined && ((status >= 400 && status < 500) || status === 502)) await service.release(keyRef);
    throw err;
  }
}
