/**
 * Charge activities: every provider call and DB write of a charge's life (Pix, and the boleto
 * steps in activities/boletos/), and the sweep for lost payment notifications. Each is
 * idempotent: provider calls carry the charge id as idempotency key, DB writes are keyed (charge
 * id, ledger movement key, outbox dedup key), so a retried activity changes nothing twice.
 *
 * Money comes in only on the provider's word: a confirmation (signal or callback) is a hint to
 * look, and settlement credits what the provider's own record of the charge says.
 *
 * This file is the list of the domain's activities; each lives in its own file and takes its
 * dependencies as its first parameter.
 */
import type { Sequelize } from 'sequelize';
import type { BoletoProvider, PixProvider, PspAccounts } from '../../core/provider';
import { closeOrphanProviderBoleto, closeProviderBoleto } from '../boletos/closeBoleto';
import { issueBoletoAtProvider, recordIssuedBoleto } from '../boletos/issueBoleto';
import { issuePixAtProvider, recordIssuedCharge } from './beforeOneStepIssue';
import { closeOrphanProviderCharge, closeProviderCharge, finalizeUnpaidCharge } from './close';
import { chargeDeps } from './deps';
import { abandonChargeIssue, issueAndRecordPix } from './issue';
import { sweepReceivedPix, type PixSweepActivityDeps } from './pixSweep';
import { settleChargePaid } from './settle';

export interface ChargeActivityDeps {
  sequelize: Sequelize;
  /** The platform's account's provider. */
  provider: PixProvider;
  /** Every merchant's account: its own connection's (the connected model) or the platform's; default: the platform's for all. */
  accounts?: PspAccounts;
  /** Boletos; by default `provider` when its client issues them too (HttpPixProvider does). */
  boletoProvider?: BoletoProvider;
  /** Our callback URL the provider will POST payment confirmations to. */
  providerCallbackUrl: string;
  /** PUBLIC_BASE_URL (checkout page URLs in checkout.* events); default: the callback URL's base. */
  publicBaseUrl?: string;
  /** PLATFORM_INSTITUTION_NAME (config.platformInstitutionName), as charge and withdrawal events show it; default config.ts's. */
  platformInstitution?: string;
}

export function createChargeActivities(activityDeps: ChargeActivityDeps) {
  const deps = chargeDeps(activityDeps);
  return {
    issuePixAtProvider: (input: Parameters<typeof issuePixAtProvider>[1]) => issuePixAtProvider(deps, input),
    recordIssuedCharge: (args: Parameters<typeof recordIssuedCharge>[1]) => recordIssuedCharge(deps, args),
    issueAndRecordPix: (input: Parameters<typeof issueAndRecordPix>[1]) => issueAndRecordPix(deps, input),
    abandonChargeIssue: (args: Parameters<typeof abandonChargeIssue>[1]) => abandonChargeIssue(deps, args),
    closeProviderCharge: (args: Parameters<typeof closeProviderCharge>[1]) => closeProviderCharge(deps, args),
    closeOrphanProviderCharge: (args: Parameters<typeof closeOrphanProviderCharge>[1]) =>
      closeOrphanProviderCharge(deps, args),
    settleChargePaid: (args: Parameters<typeof settleChargePaid>[1]) => settleChargePaid(deps, args),
    finalizeUnpaidCharge: (args: Parameters<typeof finalizeUnpaidCharge>[1]) => finalizeUnpaidCharge(deps, args),
    issueBoletoAtProvider: (input: Parameters<typeof issueBoletoAtProvider>[1]) => issueBoletoAtProvider(deps, input),
    recordIssuedBoleto: (args: Parameters<typeof recordIssuedBoleto>[1]) => recordIssuedBoleto(deps, args),
    closeProviderBoleto: (args: Parameters<typeof closeProviderBoleto>[1]) => closeProviderBoleto(deps, args),
    closeOrphanProviderBoleto: (args: Parameters<typeof closeOrphanProviderBoleto>[1]) =>
      closeOrphanProviderBoleto(deps, args),
  };
}

export type ChargeActivities = ReturnType<typeof createChargeActivities>;

/** The sweep for lost payment notifications (pixSweep.ts), registered as a domain of its own. */
export function createPixSweepActivities(deps: PixSweepActivityDeps) {
  return {
    sweepReceivedPix: (args: Parameters<typeof sweepReceivedPix>[1]) => sweepReceivedPix(deps, args),
  };
}

export type PixSweepActivities = ReturnType<typeof createPixSweepActivities>;
