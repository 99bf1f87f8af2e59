/**
 * Workflow definitions (workflows/defineWorkflow.ts) are the only place a workflow type's name is
 * written: every start, update, signal, query and schedule action takes one. A typo in a name, or
 * a workflow nobody defined, would only show when a start fails at run time; these tests fail
 * first. The type checks at the end fail `tsc` (an unused @ts-expect-error) if a wrong argument
 * ever type-checks again.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import * as workflows from '../../workflows';
import type { WorkflowDefinition, WorkflowMessage } from '../../core/temporal/definition';
import type { Workflow } from '@temporalio/common';
import { updateWithStartOrJoin } from '../../core/temporal/updateWithStart';
import { scheduleAction, startWorkflow, workflowHandle } from '../../core/temporal/workflows';
import {
  cancelChargeUpdate,
  chargeLifecycleWorkflow,
  chargeStatusQuery,
  issueChargeUpdate,
  paymentConfirmedSignal,
} from '../../workflows/charges/definitions';
import { cancelBatchUpdate } from '../../workflows/payouts/definitions';
import { requestRefundUpdate } from '../../workflows/refunds/definitions';
import { sendMailWorkflow } from '../../workflows/mail/definitions';
import { janitorWorkflow } from '../../workflows/transfers/definitions';

const workflowsDir = path.join(__dirname, '..', '..', 'workflows');

type AnyDefinition = WorkflowDefinition<Workflow, WorkflowMessage>;

/** Every export of every workflows/<domain>/definitions.ts that is a workflow definition, with where it is. */
function allDefinitions(): { where: string; definition: AnyDefinition }[] {
  const files = fs
    .readdirSync(workflowsDir, { recursive: true, encoding: 'utf8' })
    .filter((f) => path.basename(f) === 'definitions.ts');
  expect(files.length).toBeGreaterThan(5);
  return files.flatMap((file) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(path.join(workflowsDir, file)) as Record<string, unknown>;
    return Object.entries(mod)
      .filter(([, v]) => (v as { type?: unknown } | null)?.type === 'workflow')
      .map(([exportName, v]) => ({ where: `workflows/${file}: ${exportName}`, definition: v as AnyDefinition }));
  });
}

const exported = Object.entries(workflows)
  .filter(([, v]) => typeof v === 'function')
  .map(([name]) => name)
  .sort();

it('every definition names a workflow function exported by workflows/index.ts (the worker registers those names)', () => {
  const wrong = allDefinitions()
    .filter(({ definition }) => !exported.includes(definition.name))
    .map(({ where, definition }) => `${where} names '${definition.name}'`);
  expect(wrong).toEqual([]);
});

it('every exported workflow function has exactly one definition, so each can be started through one', () => {
  const named = allDefinitions().map(({ definition }) => definition.name);
  expect([...named].sort()).toEqual(exported);
});

it('the helpers use the name the definition holds', () => {
  expect(scheduleAction(janitorWorkflow, { workflowId: 'j', taskQueue: 'q', args: [] })).toEqual({
    type: 'startWorkflow',
    workflowType: 'janitor',
    workflowId: 'j',
    taskQueue: 'q',
    args: [],
  });
  expect(chargeLifecycleWorkflow.name).toBe('chargeLifecycle');
});

/** Never run: tsc checks that each wrong call below is refused. */
export async function wrongCallsDoNotTypeCheck(client: Client): Promise<void> {
  const run = { workflowId: 'x', taskQueue: 'q', merchantId: 'm', initialStatus: 'S' };
  // @ts-expect-error the charge workflow's input is a ChargeLifecycleInput
  await updateWithStartOrJoin(client, chargeLifecycleWorkflow, issueChargeUpdate, { ...run, args: [{ wrong: 1 }] });
  // @ts-expect-error a refund update is not one the charge workflow handles
  await updateWithStartOrJoin(client, chargeLifecycleWorkflow, requestRefundUpdate, { ...run, args: [null as never] });
  const charge = workflowHandle(client, chargeLifecycleWorkflow, 'charge-x');
  // @ts-expect-error a payout batch's update sent to a charge
  await charge.executeUpdate(cancelBatchUpdate, { reason: 'r' });
  // @ts-expect-error the reason is a string
  await charge.executeUpdate(cancelChargeUpdate, { reason: 1 });
  // @ts-expect-error a payment confirmation has its own shape
  await charge.signal(paymentConfirmedSignal, { nope: true });
  // @ts-expect-error the status query answers a phase, not a number
  const phase: number = await charge.query(chargeStatusQuery);
  void phase;
  // @ts-expect-error sendMail takes { mailId }
  await startWorkflow(client, sendMailWorkflow, { workflowId: 'x', taskQueue: 'q', args: [{ mail: 'x' }] });
  // @ts-expect-error the janitor takes no arguments
  scheduleAction(janitorWorkflow, { workflowId: 'x', taskQueue: 'q', args: [1] });
}
