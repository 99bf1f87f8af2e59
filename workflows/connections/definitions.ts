/** The connection workflows' types, named once: started by the application API (api/connections/) or a Schedule. */
import { defineWorkflow } from '../defineWorkflow';
import type { pspBalanceReading } from './balanceReading';
import type { pspConnectionRotate, pspConnectionTest, pspConnectionWebhook } from './connectionChecks';

/** "Test the connection": a token, the webhook and the balance read with the merchant's own connection. */
export const pspConnectionTestWorkflow = defineWorkflow<typeof pspConnectionTest>('pspConnectionTest');
/** The connection's own notification URL registered at the merchant's PSP for its Pix key. */
export const pspConnectionWebhookWorkflow = defineWorkflow<typeof pspConnectionWebhook>('pspConnectionWebhook');

/** Every active connection's balance (saldo) read and kept as its last reading: the Schedule's run, every minute. */
export const pspBalanceReadingWorkflow = defineWorkflow<typeof pspBalanceReading>('pspBalanceReading');
/** One per task queue (deployment), like the other Schedules: its runs go to that queue's workers. */
export const balanceReadingScheduleId = (taskQueue: string) => `psp-balance-reading-${taskQueue}`;
/** A rotation staged by the API: the new material tested with the merchant's PSP, promoted only if it passes. */
export const pspConnectionRotateWorkflow = defineWorkflow<typeof pspConnectionRotate>('pspConnectionRotate');
