/**
 * Per-merchant automatic settlement: the config row (settlement_schedules) and the Temporal
 * Schedule `settlement-<merchantId>` that fires `scheduledSettlement`. Whether it is paused lives
 * only in Temporal (so a pause made in the Web UI is what GET shows); frequency and minimum live
 * in the row, which the scheduled run reads when it fires (a deleted row → the run skips).
 */
import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleSpec,
} from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import { settlementStore, type ScheduleConfig } from '../../db/settlements';
import { scheduledSettlementWorkflow } from '../../workflows/settlements/definitions';
import { requireRole } from '../identity/auth/roles';
import { ApiError } from '../errors/apiError';
import { temporalErrorToApi } from '../temporal/temporalErrors';
import { scheduleAction } from '../../core/temporal/workflows';
import type { PutScheduleBody, ScheduleView, SettlementFrequency } from './schema';
import { SETTLEMENT_ROLES } from './service';

export const SETTLEMENT_TIMEZONE = 'America/Sao_Paulo';
export const settlementScheduleId = (merchantId: string) => `settlement-${merchantId}`;

/** How long a PUT's answer waits for the schedule to show the pause state it set (see view). */
const UPDATE_APPLIED_WITHIN_MS = 3_000;

export const scheduleErrors = {
  notFound: () => new ApiError(404, 'SETTLEMENT_SCHEDULE_NOT_FOUND', 'this merchant has no settlement schedule'),
};

/** D0 settles the day's balance late in the evening; D1 and WEEKLY settle at 06:00 what the previous day ended with. */
export function scheduleSpec(frequency: SettlementFrequency): ScheduleSpec {
  const calendar =
    frequency === 'D0'
      ? { hour: 23, minute: 0 }
      : frequency === 'D1'
        ? { hour: 6, minute: 0 }
        : { dayOfWeek: 'MONDAY' as const, hour: 6, minute: 0 };
  return { calendars: [calendar], timezone: SETTLEMENT_TIMEZONE };
}

/** Temporal unreachable: 503 (the same request can simply be sent again), never a 500. */
async function orUnavailable<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw temporalErrorToApi(err, { unavailable: 'the workflow service is unavailable; retry' });
  }
}

export class SettlementScheduleService {
  constructor(private readonly deps: { sequelize: Sequelize; temporal: Client; taskQueue: string }) {}

  async get(userId: string, merchantId: string): Promise<ScheduleView> {
    return orUnavailable(() => this.read(userId, merchantId));
  }

  async put(userId: string, body: PutScheduleBody): Promise<ScheduleView> {
    return orUnavailable(() => this.write(userId, body));
  }

  async remove(userId: string, merchantId: string): Promise<void> {
    return orUnavailable(() => this.delete(userId, merchantId));
  }

  private async read(userId: string, merchantId: string): Promise<ScheduleView> {
    await requireRole(userId, merchantId, SETTLEMENT_ROLES);
    const row = await this.config(merchantId);
    if (!row) throw scheduleErrors.notFound();
    return this.view(row);
  }

  /** Creates or updates the row and the Temporal Schedule (the row first: a fired run reads it). */
  private async write(userId: string, body: PutScheduleBody): Promise<ScheduleView> {
    await requireRole(userId, body.merchantId, SETTLEMENT_ROLES);
    await settlementStore.putSchedule(this.deps.sequelize, {
      merchantId: body.merchantId,
      frequency: body.frequency,
      minimumAmountCents: body.minimumAmountCents,
      updatedBy: userId,
    });
    const scheduleId = settlementScheduleId(body.merchantId);
    const spec = scheduleSpec(body.frequency);
    try {
      await this.deps.temporal.schedule.create({
        scheduleId,
        spec,
        policies: { overlap: ScheduleOverlapPolicy.SKIP },
        state: {
          paused: body.paused ?? false,
          note: body.paused ? 'paused through PUT /settlements/schedule' : undefined,
        },
        action: scheduleAction(scheduledSettlementWorkflow, {
          workflowId: scheduleId,
          taskQueue: this.deps.taskQueue,
          args: [{ merchantId: body.merchantId }],
        }),
      });
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
      // One update carries the spec and the pause state: a pause or resume sent beside it is
      // applied by the schedule's own workflow later, after this answer was read.
      await this.deps.temporal.schedule.getHandle(scheduleId).update((previous) => ({
        ...previous,
        spec,
        state:
          body.paused === undefined
            ? previous.state
            : {
                ...previous.state,
                paused: body.paused,
                note: body.paused
                  ? 'paused through PUT /settlements/schedule'
                  : 'resumed through PUT /settlements/schedule',
              },
      }));
    }
    const row = await this.config(body.merchantId);
    if (!row) throw scheduleErrors.notFound();
    return this.view(row, body.paused);
  }

  private async delete(userId: string, merchantId: string): Promise<void> {
    await requireRole(userId, merchantId, SETTLEMENT_ROLES);
    const row = await this.config(merchantId);
    try {
      await this.deps.temporal.schedule.getHandle(settlementScheduleId(merchantId)).delete();
    } catch (err) {
      if (!(err instanceof ScheduleNotFoundError)) throw err;
      if (!row) throw scheduleErrors.notFound();
    }
    await settlementStore.deleteSchedule(this.deps.sequelize, merchantId);
  }

  private config(merchantId: string): Promise<ScheduleConfig | null> {
    return settlementStore.findSchedule(this.deps.sequelize, merchantId);
  }

  /**
   * The config row with what Temporal says of the schedule. `expectPaused`: the state a PUT just
   * set; the schedule's workflow applies an update shortly after accepting it, so the read waits
   * (up to UPDATE_APPLIED_WITHIN_MS) until it shows that state, and answers what it shows then.
   */
  private async view(row: ScheduleConfig, expectPaused?: boolean): Promise<ScheduleView> {
    let paused = true; // no Temporal Schedule (deleted in the Web UI): nothing will fire
    let nextRunAt: string | null = null;
    try {
      const handle = this.deps.temporal.schedule.getHandle(settlementScheduleId(row.merchantId));
      let described = await handle.describe();
      const deadline = Date.now() + UPDATE_APPLIED_WITHIN_MS;
      while (expectPaused !== undefined && described.state.paused !== expectPaused && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        described = await handle.describe();
      }
      paused = described.state.paused;
      const next = described.info.nextActionTimes[0];
      nextRunAt = next && !paused ? next.toISOString() : null;
    } catch (err) {
      if (!(err instanceof ScheduleNotFoundError)) throw err;
    }
    return {
      merchantId: row.merchantId,
      scheduleId: settlementScheduleId(row.merchantId),
      frequency: row.frequency,
      minimumAmountCents: row.minimumAmountCents,
      paused,
      timezone: SETTLEMENT_TIMEZONE,
      nextRunAt,
      updatedAt: row.updatedAt.toISOString(),
    };
  }
}
