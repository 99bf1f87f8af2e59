/**
 * Check 5: no workflow run of the gateway's task queue is stuck or ended badly. An open run is
 * stuck once it is older than the longest wait its type may have (workflows/<domain>/
 * definitions.ts and what the run waits for) plus `staleAfterMs`:
 *  - chargeLifecycle waits for its charge's expiry (charges.expires_at);
 *  - medInfraction waits for the infraction's deadline (med_infractions.deadline_at);
 *  - webhookDelivery retries within DELIVERY_WINDOW_MS of its start;
 *  - the outbox dispatcher runs for ever (it continues as new): expected, a note;
 *  - every other run (payouts, withdrawals, refunds, transfers, settlements, schedules' runs)
 *    ends within minutes once the PSP answers.
 * A run Failed, TimedOut or Terminated (since `since`) is a discrepancy: money workflows are
 * never terminated (docs/operations.md), and a failed one may have left money half-moved. The
 * one exception is sentPixNotice, which a newer notice about the same send terminates by design
 * (db/charges/paymentClaims.ts, TERMINATE_EXISTING): its terminated runs are a note.
 */
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { QueryTypes, type Sequelize } from 'sequelize';
import { DELIVERY_WINDOW_MS } from '../../core/events/retrySchedule';
import { chargeLifecycleWorkflow, chargeWorkflowId } from '../../workflows/charges/definitions';
import { outboxDispatcherWorkflow, webhookDeliveryWorkflow } from '../../workflows/events/definitions';
import { medInfractionWorkflow, medInfractionWorkflowId } from '../../workflows/med/definitions';
import { sentPixNoticeWorkflow } from '../../workflows/transfers/definitions';
import { DEFAULT_STALE_AFTER_MS, type AuditCheck, type AuditOptions, type Discrepancy } from './types';

const ENDED_BADLY = ['Failed', 'TimedOut', 'Terminated'];

export async function auditWorkflows(
  deps: { sequelize: Sequelize; temporal: Client },
  opts: AuditOptions,
): Promise<AuditCheck> {
  const now = (opts.now ?? new Date()).getTime();
  const stale = opts.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
  const queue = `TaskQueue = '${opts.taskQueue.replace(/'/g, "''")}'`;
  const open = await listRuns(deps.temporal, `${queue} AND ExecutionStatus = 'Running'`);
  const closedSince = opts.since ? ` AND CloseTime >= '${opts.since.toISOString()}'` : '';
  const ended = await listRuns(
    deps.temporal,
    `${queue} AND (${ENDED_BADLY.map((s) => `ExecutionStatus = '${s}'`).join(' OR ')})${closedSince}`,
  );

  const discrepancies: Discrepancy[] = [];
  const notes: string[] = [];
  const waits = await longestWaits(deps.sequelize, open);
  for (const run of open) {
    if (run.type === outboxDispatcherWorkflow.name) {
      notes.push(`workflow:${run.workflowId} (${run.type}) running, as expected`);
      continue;
    }
    const waitsUntil = waits.get(run.workflowId) ?? run.startTime.getTime();
    if (now > waitsUntil + stale)
      discrepancies.push({
        row: `workflow:${run.workflowId}`,
        problem: `${run.type} open since ${run.startTime.toISOString()}, past its longest wait (${new Date(waitsUntil).toISOString()}) by more than ${Math.round(stale / 60_000)} min`,
      });
  }
  const replaced = ended.filter((r) => r.type === sentPixNoticeWorkflow.name && r.status.name === 'TERMINATED');
  if (replaced.length) notes.push(`${replaced.length} ${sentPixNoticeWorkflow.name} runs replaced by a newer notice`);
  for (const run of ended.filter((r) => !replaced.includes(r)))
    discrepancies.push({
      row: `workflow:${run.workflowId}`,
      problem: `${run.type} ${run.status.name} at ${run.closeTime?.toISOString() ?? '?'} (run ${run.runId})`,
    });
  return { check: 'workflows', examined: open.length + ended.length, discrepancies, notes };
}

async function listRuns(temporal: Client, query: string): Promise<WorkflowExecutionInfo[]> {
  const runs: WorkflowExecutionInfo[] = [];
  for await (const run of temporal.workflow.list({ query })) runs.push(run);
  return runs;
}

/** When each open run's longest wait ends, for the types that wait on a business date; start time otherwise. */
async function longestWaits(sequelize: Sequelize, open: WorkflowExecutionInfo[]): Promise<Map<string, number>> {
  const waits = new Map<string, number>();
  const idsOf = (type: string, prefix: string) =>
    open.filter((r) => r.type === type).map((r) => r.workflowId.slice(prefix.length));
  const chargePrefix = chargeWorkflowId('');
  const medPrefix = medInfractionWorkflowId('');
  const uuid = /^[0-9a-f-]{36}$/i;
  const charges = idsOf(chargeLifecycleWorkflow.name, chargePrefix).filter((id) => uuid.test(id));
  const infractions = idsOf(medInfractionWorkflow.name, medPrefix).filter((id) => uuid.test(id));
  if (charges.length)
    for (const c of await sequelize.query<{ id: string; expires_at: Date }>(
      'SELECT id, expires_at FROM charges WHERE id IN (:ids)',
      { replacements: { ids: charges }, type: QueryTypes.SELECT },
    ))
      waits.set(chargeWorkflowId(c.id), c.expires_at.getTime());
  if (infractions.length)
    for (const m of await sequelize.query<{ id: string; deadline_at: Date }>(
      'SELECT id, deadline_at FROM med_infractions WHERE id IN (:ids)',
      { replacements: { ids: infractions }, type: QueryTypes.SELECT },
    ))
      waits.set(medInfractionWorkflowId(m.id), m.deadline_at.getTime());
  for (const run of open)
    if (run.type === webhookDeliveryWorkflow.name)
      waits.set(run.workflowId, run.startTime.getTime() + DELIVERY_WINDOW_MS);
  return waits;
}
