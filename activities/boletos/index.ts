/**
 * The boletos domain's activities: BoletoBatch's steps (batch.ts, issueBatchItem.ts). The boleto
 * charge steps in this folder (issueBoleto.ts, closeBoleto.ts, settleBoleto.ts) are charge
 * activities: ChargeLifecycle runs them, and activities/charges/index.ts lists them.
 *
 * This file is the list of the domain's activities; each lives in its own file and takes its
 * dependencies as its first parameter.
 */
import type { Sequelize } from 'sequelize';
import { failBoletoBatchItem, finishBoletoBatch, listPendingBoletoItems } from './batch';
import { issueBoletoBatchItem } from './issueBatchItem';

export interface BoletoBatchActivityDeps {
  sequelize: Sequelize;
}

export function createBoletoBatchActivities(deps: BoletoBatchActivityDeps) {
  return {
    listPendingBoletoItems,
    issueBoletoBatchItem,
    failBoletoBatchItem,
    finishBoletoBatch: (args: Parameters<typeof finishBoletoBatch>[1]) => finishBoletoBatch(deps, args),
  };
}

export type BoletoBatchActivities = ReturnType<typeof createBoletoBatchActivities>;
