/** The scheduled settlement workflow, defined once and shared by the workflow and the API's Schedule. */
import { defineWorkflow } from '../defineWorkflow';
import type { scheduledSettlement } from './scheduledSettlement';

/** One firing of a merchant's settlement Schedule (`settlement-<merchantId>`). */
export const scheduledSettlementWorkflow = defineWorkflow<typeof scheduledSettlement>('scheduledSettlement');
