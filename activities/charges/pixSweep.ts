/**
 * The sweep for lost payment notifications: PSPs do lose callbacks, and a charge can
 * wait 30 days for its expiry. Every minute (workers/ensurePixSweepSchedule.ts) the PSP's list of
 * Pix received over the last minutes (API Pix GET /pix) is read, and each Pix of a charge of ours
 * not yet taken goes through the one claim path, exactly as its notification would have
 * (ProviderCallbackService.handleReceivedPix: stored once as `pix:<endToEndId>`, signal or late
 * settlement, credited only once GET /cob and GET /pix/{e2eid} confirm it). A Pix the notification
 * (or an earlier sweep) already took is skipped without a write.
 *
 * Every account is swept: the platform's, and each active connected merchant's own (issue 37),
 * through its own connection. A connection's Pix is claimed with its merchant's scope, exactly as
 * its notification route claims it (api/connections/notifications: event `pix:<merchantId>:<e2e>`,
 * another merchant's charge NOT_THIS_CONNECTION), so the sweep and a late notification take it once.
 * A connected account's boletos paid by barcode are not in GET /pix: the same pass reads its list of
 * billets paid (boletoSweep.ts) when it has a boleto waiting.
 * One connection that cannot be read (revoked meanwhile, its PSP down) is logged and skipped: the
 * others are swept, and the next minute's pass tries it again; the platform's account failing
 * fails the pass, as before.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Logger } from 'pino';
import type { Sequelize } from 'sequelize';
import { eachActiveConnection } from '../provider/accounts/eachActiveConnection';
import { sweepConnectedBoletos } from './boletoSweep';
import { providerEventStore } from '../../db/charges';
import {
  ProviderCallbackService,
  receivedPixEventId,
  type CallbackOutcome,
  type MerchantScope,
} from '../../db/charges';
import { chargeIdOfTxid } from '../../core/pix/apiPixIds';
import {
  isReceivedPixProvider,
  ProviderError,
  type PixProvider,
  type PspAccounts,
  type ReceivedPix,
} from '../../core/provider';

export interface PixSweepActivityDeps {
  sequelize: Sequelize;
  provider: PixProvider;
  /** The connected merchants' accounts; absent: the platform's account only. */
  accounts?: PspAccounts;
  logger: Logger;
}

export interface PixSweepResult {
  /** Pix the PSP listed in the window, every account swept. */
  listed: number;
  /** Pix of our charges that no notification had brought: taken now. */
  taken: number;
  outcomes: Partial<Record<CallbackOutcome, number>>;
  /** A connected account's boletos paid whose notice never came (Efí's list of billets paid): taken now. */
  boletosTaken: number;
  /** Connected accounts swept (the platform's aside). */
  connections: number;
  /** Connections whose list could not be read this pass (their ids; retried next minute). */
  failedConnections: string[];
}

/** One account's pass: what it listed, what it took. */
type Pass = Pick<PixSweepResult, 'listed' | 'taken' | 'outcomes'>;

/** One run of the sweep over the last `lookbackMs` of Pix the PSP received, on every account. */
export async function sweepReceivedPix(
  deps: PixSweepActivityDeps,
  args: { lookbackMs: number },
): Promise<PixSweepResult> {
  const to = new Date();
  const window = { from: new Date(to.getTime() - args.lookbackMs).toISOString(), to: to.toISOString() };
  const result: PixSweepResult = {
    listed: 0,
    taken: 0,
    outcomes: {},
    boletosTaken: 0,
    connections: 0,
    failedConnections: [],
  };
  const claims = claimPath(deps);
  let platformFailure: unknown = null;
  try {
    add(result, await sweepAccount(deps, claims, deps.provider, window));
  } catch (err) {
    // The connections are swept all the same; the pass fails below.
    platformFailure = err;
  }
  const accounts = deps.accounts;
  if (accounts) {
    const { visited, failed } = await eachActiveConnection(
      { sequelize: deps.sequelize, logger: deps.logger.child({ module: 'pix-sweep' }) },
      "a connected account's received Pix could not be listed; swept again next pass",
      async (connection) => {
        const account = await accounts.forConnection(connection.id);
        const scope = { merchantId: connection.merchantId };
        add(result, await sweepAccount(deps, claims, account.provider, window, scope));
        // Its boletos paid by barcode are not in GET /pix: Efí's list of billets paid (boletoSweep.ts).
        const boletos = await sweepConnectedBoletos(claims, account, scope, {
          nowMs: to.getTime(),
          lookbackMs: args.lookbackMs,
        });
        result.boletosTaken += boletos.taken;
        addOutcomes(result, boletos.outcomes);
        if (boletos.taken > 0)
          // Worth a look, as for a Pix: the PSP is losing the account's boleto notices.
          deps.logger.warn(
            { merchantId: connection.merchantId, connectionId: connection.id, taken: boletos.taken },
            'boletos paid without their notice were taken by the sweep',
          );
      },
    );
    result.connections += visited;
    result.failedConnections.push(...failed.map((c) => c.id));
  }
  if (platformFailure instanceof ProviderError)
    // Our words only in the failure; the next minute's run looks again over the same window.
    throw ApplicationFailure.retryable(
      `the PSP's list of received Pix could not be read (${platformFailure.code})`,
      'ProviderUnavailable',
    );
  if (platformFailure) throw platformFailure;
  return result;
}

function add(into: PixSweepResult, pass: Pass): void {
  into.listed += pass.listed;
  into.taken += pass.taken;
  addOutcomes(into, pass.outcomes);
}

function addOutcomes(into: PixSweepResult, outcomes: Pass['outcomes']): void {
  for (const [outcome, n] of Object.entries(outcomes) as [CallbackOutcome, number][])
    into.outcomes[outcome] = (into.outcomes[outcome] ?? 0) + n;
}

/**
 * One account's Pix received in the window, each not yet taken through the claim path; `scope`: a
 * connected merchant's account, claimed as its notification route claims.
 */
async function sweepAccount(
  deps: PixSweepActivityDeps,
  claims: () => ProviderCallbackService,
  provider: PixProvider,
  window: { from: string; to: string },
  scope?: MerchantScope,
): Promise<Pass> {
  if (!isReceivedPixProvider(provider)) return { listed: 0, taken: 0, outcomes: {} };
  const listed = await provider.listReceivedPix(window);
  // Ours by shape: a Pix of a static code, a boleto's or another system's is not a charge of ours.
  const ours = listed.filter((pix) => pix.txid !== null && chargeIdOfTxid(pix.txid) !== null);
  // The events already stored with an outcome: a notification or an earlier sweep took them.
  const taken = await providerEventStore.withOutcome(
    deps.sequelize,
    ours.map((pix) => receivedPixEventId(pix.endToEndId, scope)),
  );
  const fresh = ours.filter((pix) => !taken.has(receivedPixEventId(pix.endToEndId, scope)));
  const outcomes = fresh.length > 0 ? await takeFresh(deps, claims(), fresh, scope) : {};
  return { listed: listed.length, taken: fresh.length, outcomes };
}

/** The one claim path, built once per pass when a Pix needs it. */
function claimPath(deps: PixSweepActivityDeps): () => ProviderCallbackService {
  let service: ProviderCallbackService | null = null;
  return () => {
    if (service) return service;
    const ctx = Context.current();
    service = new ProviderCallbackService({
      sequelize: deps.sequelize,
      temporal: ctx.client,
      taskQueue: ctx.info.taskQueue,
      logger: deps.logger.child({ module: 'provider-callbacks' }),
    });
    return service;
  };
}

/** Each Pix no notification brought, through the one claim path, as its notification would have gone. */
async function takeFresh(
  deps: PixSweepActivityDeps,
  claims: ProviderCallbackService,
  fresh: ReceivedPix[],
  scope?: MerchantScope,
): Promise<Pass['outcomes']> {
  const logger = deps.logger.child({ module: 'pix-sweep' });
  const outcomes: Pass['outcomes'] = {};
  for (const pix of fresh) {
    const outcome = await claims.handleReceivedPix(pix, scope);
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    // Worth a look: the PSP (or its webhook registration) is losing notifications.
    logger.warn(
      { txid: pix.txid, endToEndId: pix.endToEndId, outcome, merchantId: scope?.merchantId },
      'a Pix received without its notification was taken by the sweep',
    );
  }
  return outcomes;
}
