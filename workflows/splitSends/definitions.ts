import { defineWorkflow } from '../defineWorkflow';
import type { splitSend } from './splitSend';

/** One run per split send; its id is the row's, so a second start of the same send finds the first. */
export const splitSendWorkflow = defineWorkflow<typeof splitSend>('splitSend');
export const splitSendWorkflowId = (splitSendId: string) => `split-send-${splitSendId}`;
