/**
 * Idempotency keys, per merchant and scope. The first request with a key claims it (with the
 * resource id it will create) and holds the claim under a holder token; a replay with the same
 * payload gets the stored answer; a different payload gets 409 DUPLICATE_IDEMPOTENCY_KEY; a
 * concurrent duplicate waits for the first one. A live holder keeps extending its lock while it
 * works, so only a claim whose holder died (lock ran out) is taken over — with the same
 * resource id, so the retry finishes the same work instead of doubling it. Only the current
 * holder may extend, complete or free a claim. Keys expire after a set time.
 *
 * Every time comparison happens in PostgreSQL (now()), never against a JavaScript Date read
 * back from it: timestamps there have microseconds, a Date only milliseconds.
 */
import crypto from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { idempotencyStore } from '../../db/idempotency';
import type { Logger } from 'pino';
import { errors } from '../errors/apiError';

export type IdempotencyClaim =
  | { kind: 'owner'; resourceId: string; takenOver: boolean; holder: string }
  | { kind: 'replay'; status: number; body: unknown; resourceId: string };

/**
 * The holder's lease: how long a claim stays locked without being renewed. A live holder renews
 * it every third of that (runIdempotent), so it would have to miss two renewals in a row to lose
 * it; a holder whose process died is taken over by a same-key retry within this time. Short,
 * because every retry of that key waits it out: it was 60 s.
 */
export const IDEMPOTENCY_LEASE_SECONDS = 10;

export interface IdempotencyOptions {
  ttlHours: number;
  /** The holder's lease (IDEMPOTENCY_LEASE_SECONDS by default); a live holder renews it every third of that. */
  lockSeconds?: number;
  /** How long a concurrent duplicate waits for the holder's answer before 503. */
  waitMs?: number;
  /** Claims that could not be kept or stored are logged here. */
  logger: Logger;
}

export interface KeyRef {
  merchantId: string;
  scope: string;
  key: string;
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
  readonly lockSeconds: number;
  readonly logger: Logger;
  private readonly waitMs: number;

  constructor(
    private readonly sequelize: Sequelize,
    private readonly opts: IdempotencyOptions,
  ) {
    this.lockSeconds = opts.lockSeconds ?? IDEMPOTENCY_LEASE_SECONDS;
    this.logger = opts.logger;
    this.waitMs = opts.waitMs ?? 30_000;
  }

  async claim(args: KeyRef & { requestHash: string; newResourceId: string }): Promise<IdempotencyClaim> {
    const deadline = Date.now() + this.waitMs;
    const { lockSeconds } = this;
    for (;;) {
      const holder = crypto.randomUUID();
      // An expired record no longer binds its key.
      await idempotencyStore.dropExpired(this.sequelize, args);
      const inserted = await idempotencyStore.insertClaim(this.sequelize, {
        ...args,
        resourceId: args.newResourceId,
        holder,
        lockSeconds,
        ttlHours: this.opts.ttlHours,
      });
      if (inserted) return { kind: 'owner', resourceId: args.newResourceId, takenOver: false, holder };

      // The holder stopped extending its lock (it died): take over, same payload only.
      const taken = await idempotencyStore.takeOverClaim(this.sequelize, { ...args, holder, lockSeconds });
      if (taken !== null) return { kind: 'owner', resourceId: taken, takenOver: true, holder };

      const existing = await idempotencyStore.findLive(this.sequelize, args);
      if (existing) {
        if (existing.requestHash !== args.requestHash) throw errors.duplicateIdempotencyKey();
        if (existing.state === 'COMPLETED') {
          return {
            kind: 'replay',
            status: existing.responseStatus as number,
            body: existing.responseBody,
            resourceId: existing.resourceId,
          };
        }
      }
      if (Date.now() > deadline) {
        throw errors.unavailable(
          'a request with this idempotency key is still in progress; retry later with the same key',
        );
      }
      await sleep(100);
    }
  }

  /** Keeps a live holder's claim locked. False when the claim is no longer this holder's. */
  async extend(args: KeyRef & { holder: string }): Promise<boolean> {
    return idempotencyStore.extendClaim(this.sequelize, args, args.holder, this.lockSeconds);
  }

  /** Stores the answer. False when another request took the claim over meanwhile: its answer stands. */
  async complete(args: KeyRef & { holder: string; status: number; body: unknown }): Promise<boolean> {
    return idempotencyStore.completeClaim(this.sequelize, args, args.holder, args);
  }

  /** Frees a key whose request created nothing (e.g. the provider refused), so the caller may retry with it. */
  async release(args: KeyRef & { holder: string }): Promise<void> {
    await idempotencyStore.releaseClaim(this.sequelize, args, args.holder);
  }

  /** Ends the holder's lease but keeps the claim bound to its resource id (a refused takeover). */
  async unlock(args: KeyRef & { holder: string }): Promise<void> {
    await idempotencyStore.unlockClaim(this.sequelize, args, args.holder);
  }
}

export interface IdempotentResult {
  status: number;
  body: unknown;
  replay: boolean;
}

/**
 * Marks an error after which nothing was created although it is not a 4xx/502 (e.g. a 503
 * whose workflow made sure nothing was reserved): the key is freed for a retry.
 */
export function nothingCreated<E extends Error>(err: E): E {
  return Object.assign(err, { nothingCreated: true });
}

/**
 * Marks an error answered after the claim's resource was made final although the request did
 * not succeed (e.g. a 503 whose workflow gave up reserving and wrote a FAILED withdrawal under the
 * claim's id): that row is the key's one effect, so the claim stays bound to it, its lease ended,
 * and the next same-key retry resumes the same resource id at once and answers it.
 */
export function effectKept<E extends Error>(err: E): E {
  return Object.assign(err, { effectKept: true });
}

/**
 * The one way a mutating route runs its work under an idempotency key:
 * claim → work(resourceId) while the claim is kept alive → store the answer. Without a key the
 * work simply runs. Checks that depend on time, the database or DNS belong inside `work`, so a
 * same-key retry replays the stored answer instead of being judged again.
 * A refusal (4xx), a provider failure (502) or an error marked `nothingCreated` means nothing
 * was created and frees the key; any other failure keeps the claim, so a retry resumes the same
 * resource id instead of doubling it. A request that took the claim over (`resuming`) is not the
 * one that made the effect: a refusal there proves nothing about what the first holder did (it
 * may have passed a one-time gate, such as an action token, that the retry cannot pass again), so
 * only `nothingCreated` frees the key; otherwise the claim stays bound to its resource id, its
 * lease ended, for the next retry to resume at once; so does an error marked `effectKept`. Work
 * that resumes answers the effect it finds before any such gate.
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
  const keyRef: KeyRef = { merchantId: ref.merchantId, scope: ref.scope, key: ref.key };
  const claim = await service.claim({
    ...keyRef,
    requestHash: fingerprint(ref.request),
    newResourceId: ref.newResourceId,
  });
  if (claim.kind === 'replay') return { status: claim.status, body: claim.body, replay: true };
  const held = { ...keyRef, holder: claim.holder };
  const keepAlive = renewWhileWorking(service, held);
  try {
    const result = await work(claim.resourceId, claim.takenOver);
    keepAlive.stop();
    const stored = await service.complete({
      ...held,
      status: result.status,
      body: ref.storedBody ? ref.storedBody(result.body) : result.body,
    });
    // Same resource id either way: the request that took over finishes the same work.
    if (!stored)
      service.logger.warn(
        { scope: keyRef.scope, resourceId: claim.resourceId },
        'idempotency claim was taken over before its answer was stored',
      );
    return { ...result, replay: false };
  } catch (err) {
    keepAlive.stop();
    const status = (err as { status?: number })?.status;
    const nothingMade = (err as { nothingCreated?: boolean })?.nothingCreated === true;
    const kept = (err as { effectKept?: boolean })?.effectKept === true;
    const refused = status !== undefined && ((status >= 400 && status < 500) || status === 502);
    if (nothingMade || (refused && !claim.takenOver)) await service.release(held);
    else if (refused || kept) await service.unlock(held);
    throw err;
  }
}

/**
 * Renews the holder's lease every third of it until stopped (the answer stored or the claim
 * freed). One renewal at a time: under load a slow one is not queued behind by more.
 */
function renewWhileWorking(service: IdempotencyService, held: KeyRef & { holder: string }): { stop: () => void } {
  let renewing = false;
  let stopped = false;
  const timer = setInterval(
    () => {
      if (renewing) return;
      renewing = true;
      service
        .extend(held)
        .then((kept) => {
          // A renewal that lands after the answer was stored (or the key freed) finds no claim: not a loss.
          if (!kept && !stopped)
            service.logger.warn({ scope: held.scope }, 'idempotency claim was taken over while its request worked');
        })
        .catch((err: unknown) =>
          service.logger.warn({ scope: held.scope, err: String(err) }, 'could not extend an idempotency claim'),
        )
        .finally(() => {
          renewing = false;
        });
    },
    (service.lockSeconds * 1000) / 3,
  );
  timer.unref();
  return {
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}
