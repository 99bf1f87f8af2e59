/**
 * The sweep for lost payment notifications: PSPs do lose callbacks, and a charge can
 * wait 30 days for its expiry. Every minute (workers/ensurePixSweepSchedule.ts) the PSP's list of
 * Pix received over the last minutes (API Pix GET /pix) is read, and each Pix of a charge of ours
 * not yet taken goes through the one claim path, exactly as its notification would have
 * (ProviderCallbackService.handleReceivedPix: stored once as `pix:<endToEndId>`, signal or late
 * settlement, credited only once GET /cob and GET /pix/{e2eid} confirm it). A Pix the notification
 * (or an earlier sweep) already took is skipped without a write.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Logger } from 'pino';
import type { Sequelize } from 'sequelize';
import { providerEventStore } from '../../db/charges';
import { ProviderCallbackService, receivedPixEventId, type CallbackOutcome } from '../../db/charges';
import { chargeIdOfTxid } from '../../core/pix/apiPixIds';
import { isReceivedPixProvider, ProviderError, type PixProvider, type ReceivedPix } from '../../core/provider';

export interface PixSweepActivityDeps {
  sequelize: Sequelize;
  provider: PixProvider;
  logger: Logger;
}

export interface PixSweepResult {
  /** Pix the PSP listed in the window. */
  listed: number;
  /** Pix of our charges that no notification had brought: taken now. */
  taken: number;
  outcomes: Partial<Record<CallbackOutcome, number>>;
}

/** One run of the sweep over the last `lookbackMs` of Pix the PSP received. */
export async function sweepReceivedPix(
  deps: PixSweepActivityDeps,
  args: { lookbackMs: number },
): Promise<PixSweepResult> {
  const { sequelize, provider } = deps;
  if (!isReceivedPixProvider(provider)) return { listed: 0, taken: 0, outcomes: {} };
  const to = new Date();
  const from = new Date(to.getTime() - args.lookbackMs);
  let listed: ReceivedPix[];
  try {
    listed = await provider.listReceivedPix({ from: from.toISOString(), to: to.toISOString() });
  } catch (err) {
    // Our words only in the failure; the next minute's run looks again over the same window.
    if (err instanceof ProviderError)
      throw ApplicationFailure.retryable(
        `the PSP's list of received Pix could not be read (${err.code})`,
        'ProviderUnavailable',
      );
    throw err;
  }
  // Ours by shape: a Pix of a static code, a boleto's or another system's is not a charge of ours.
  const ours = listed.filter((pix) => pix.txid !== null && chargeIdOfTxid(pix.txid) !== null);
  // The events already stored with an outcome: a notification or an earlier sweep took them.
  const taken = await providerEventStore.withOutcome(
    sequelize,
    ours.map((pix) => receivedPixEventId(pix.endToEndId)),
  );
  const fresh = ours.filter((pix) => !taken.has(receivedPixEventId(pix.endToEndId)));
  const outcomes = fresh.length > 0 ? await takeFresh(deps, fresh) : {};
  return { listed: listed.length, taken: fresh.length, outcomes };
}

/** Each Pix no notification brought, through the one claim path, as its notification would have gone. */
async function takeFresh(deps: PixSweepActivityDeps, fresh: ReceivedPix[]): Promise<PixSweepResult['outcomes']> {
  const logger = deps.logger.child({ module: 'pix-sweep' });
  const ctx = Context.current();
  const claims = new ProviderCallbackService({
    sequelize: deps.sequelize,
    temporal: ctx.client,
    taskQueue: ctx.info.taskQueue,
    logger: deps.logger.child({ module: 'provider-callbacks' }),
  });
  const outcomes: PixSweepResult['outcomes'] = {};
  for (const pix of fresh) {
    const outcome = await claims.handleReceivedPix(pix);
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    // Worth a look: the PSP (or its webhook registration) is losing notifications.
    logger.warn(
      { txid: pix.txid, endToEndId: pix.endToEndId, outcome },
      'a Pix received without its notification was taken by the sweep',
    );
  }
  return outcomes;
}
