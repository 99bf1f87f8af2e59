/**
 * The capture scenario of subscriptionLifecycle (scripts/captureHistories.ts), with stand-in
 * activities: the subscription activities (activities/subscriptions) are not written yet when the
 * workflow is, so its runs are made by a worker of their own, on a task queue of their own, whose
 * activities answer as the contract (activities/subscriptions/contract.ts) says a PSP would. Replay
 * checks the workflow's commands, not what activities did, so these histories hold the workflow's
 * paths as well as real ones would: replace them with a real-stack scenario once the activities
 * exist (then the stand-ins go).
 *
 * Runs on the dev server in real time, so every path is one that needs no long timer: a journey 2
 * cycle issued at once (its due date 6 days out is inside the issue window), rejected, retried,
 * paid on a cobr notice, then the next run finding the term over; a journey 3 authorised by its
 * first payment and cancelled by the merchant; a refusal; a recurrence the PSP would not create.
 */
import crypto from 'node:crypto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { ApplicationFailure } from '@temporalio/common';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { RecurrenceReading, SubscriptionActivities } from '../../activities/subscriptions/contract';
import { addDays } from '../../core/boletos/dates';
import { brasiliaDate } from '../../core/subscriptions/issueWindow';
import type { Attempt } from '../../core/subscriptions/retries';
import {
  cancelSubscriptionUpdate,
  cycleNoticeSignal,
  prepareSubscriptionUpdate,
  subscriptionWorkflowId,
} from '../../workflows/subscriptions/definitions';
import type { SubscriptionJourney, SubscriptionLifecycleInput } from '../../workflows/subscriptions/types';
import { workflowBundle } from '../../test/support/workflowBundle';

/** How a stand-in subscription's PSP side behaves. */
interface StandIn {
  rec: RecurrenceReading;
  createFails?: boolean;
  /** A cycle's attempts by how many times it was read. */
  attempts: (reads: number) => Attempt[];
  reads: number;
}

function standInActivities(subscriptions: Map<string, StandIn>): SubscriptionActivities {
  const of = (id: string) => subscriptions.get(id) as StandIn;
  return {
    recordSubscription: async () => undefined,
    createRecurrence: async ({ subscriptionId }) => {
      if (of(subscriptionId).createFails) throw ApplicationFailure.nonRetryable('PSP refused the rec', 'PspRefused');
      return {
        subscriptionId,
        idRec: `RR12345678${subscriptionId.replace(/-/g, '').slice(0, 19)}`,
        state: 'AWAITING_AUTHORISATION',
        qrCopyPaste: '00020101021226...',
        authorizationRequestId: null,
      };
    },
    readRecurrence: async ({ subscriptionId }) => of(subscriptionId).rec,
    recordSubscriptionState: async () => undefined,
    recordFirstCycle: async () => undefined,
    issueCycle: async ({ subscriptionId, cycle }) => ({
      txid: txidOf(subscriptionId, cycle),
      chargeId: subscriptionId,
    }),
    readCycle: async ({ subscriptionId }) => {
      const s = of(subscriptionId);
      s.reads += 1;
      const attempts = s.attempts(s.reads);
      return { cobr: { status: attempts.some((a) => a.status === 'PAGA') ? 'CONCLUIDA' : 'ATIVA' }, attempts };
    },
    requestCycleRetry: async () => undefined,
    settleCycle: async () => ({ outcome: 'SETTLED' }),
    failCycle: async () => undefined,
    cancelAtProvider: async () => undefined,
  };
}

function txidOf(subscriptionId: string, cycle: number): string {
  return `c${cycle}${subscriptionId.replace(/-/g, '')}`.slice(0, 35);
}

function inputOf(
  journey: SubscriptionJourney,
  firstDueDate: string,
  lastDueDate: string | null,
): SubscriptionLifecycleInput {
  return {
    subscriptionId: crypto.randomUUID(),
    merchantId: crypto.randomUUID(),
    courseId: crypto.randomUUID(),
    priceId: crypto.randomUUID(),
    courseTitle: 'Curso de Historico',
    journey,
    interval: 'MONTHLY',
    retryPolicy: 'PERMITE_3R_7D',
    amountCents: 4_990,
    firstDueDate,
    lastDueDate,
    payer: { name: 'Bia Souza', document: '52998224725' },
    payerAccount: null,
    firstChargeId: journey === 'JOURNEY_3' ? crypto.randomUUID() : null,
    externalId: null,
    metadata: {},
    returnUrl: null,
    idempotencyKey: null,
  };
}

/** Runs the scenario's subscriptions to their end; answers the task queue (its histories) and the workflow ids. */
export async function captureSubscriptionRuns(
  temporal: Client,
  temporalAddress: string,
  waitClosed: (handle: WorkflowHandle) => Promise<void>,
): Promise<{ taskQueue: string; workflowIds: string[] }> {
  const taskQueue = `subscription-capture-${crypto.randomUUID()}`;
  const subscriptions = new Map<string, StandIn>();
  const connection = await NativeConnection.connect({ address: temporalAddress });
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowBundle: await workflowBundle(),
    activities: standInActivities(subscriptions),
  });
  const running = worker.run();
  const today = brasiliaDate(Date.now());
  const approved = (firstCharge: RecurrenceReading['firstCharge']): RecurrenceReading => ({
    status: 'APPROVED',
    cancelledBy: null,
    endingCode: null,
    firstCharge,
  });
  const start = async (args: SubscriptionLifecycleInput, standIn: Omit<StandIn, 'reads'>) => {
    subscriptions.set(args.subscriptionId, { ...standIn, reads: 0 });
    const handle = await temporal.workflow.start('subscriptionLifecycle', {
      taskQueue,
      workflowId: subscriptionWorkflowId(args.subscriptionId),
      args: [args],
    });
    await handle.executeUpdate(prepareSubscriptionUpdate).catch(() => undefined); // the failing one fails here
    return handle;
  };
  try {
    // Journey 2, one cycle: rejected on its day, a retry asked, paid on the next notice.
    const dueSoon = addDays(today, 6);
    const cycleArgs = inputOf('JOURNEY_2', dueSoon, dueSoon);
    const cycle = await start(cycleArgs, {
      rec: approved(null),
      attempts: (reads) => [
        { date: dueSoon, status: 'REJEITADA', rejectionCode: 'AM02' },
        ...(reads > 1 ? [{ date: addDays(dueSoon, 1), status: 'PAGA' as const }] : []),
      ],
    });
    const txid = txidOf(cycleArgs.subscriptionId, 1);
    await cycle.signal(cycleNoticeSignal, { txid });
    await new Promise((r) => setTimeout(r, 1_500));
    await cycle.signal(cycleNoticeSignal, { txid });

    // Journey 3: authorised by its paid first charge, then cancelled by the merchant.
    const cancelled = await start(inputOf('JOURNEY_3', today, null), { rec: approved('PAID'), attempts: () => [] });
    await new Promise((r) => setTimeout(r, 1_500));
    await cancelled.executeUpdate(cancelSubscriptionUpdate);

    const refused = await start(inputOf('JOURNEY_2', addDays(today, 10), null), {
      rec: { status: 'REJECTED', cancelledBy: null, endingCode: 'AP13', firstCharge: null },
      attempts: () => [],
    });
    const notCreated = await start(inputOf('JOURNEY_1', addDays(today, 10), null), {
      rec: approved(null),
      createFails: true,
      attempts: () => [],
    });
    const handles = [cycle, cancelled, refused, notCreated];
    await Promise.all(handles.map(waitClosed));
    return { taskQueue, workflowIds: handles.map((h) => h.workflowId) };
  } finally {
    worker.shutdown();
    await running;
    await connection.close();
  }
}
