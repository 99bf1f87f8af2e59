import { defineWorkflow } from '../defineWorkflow';
import type { janitor } from './janitor';
import type { sentPixNotice } from './sentPixNotice';

export const janitorWorkflow = defineWorkflow<typeof janitor>('janitor');

/** The janitor's Schedule, created idempotently at worker start: one per task queue (deployment), like the outbox dispatcher. */
export const janitorScheduleId = (taskQueue: string) => `janitor-${taskQueue}`;
export const janitorEvery = '10 minutes';

/** One run per send notice at a time; a later notice of the same send (a return) starts another. */
export const sentPixNoticeWorkflow = defineWorkflow<typeof sentPixNotice>('sentPixNotice');
export const sentPixNoticeWorkflowId = (idEnvio: string) => `sent-pix-${idEnvio}`;
