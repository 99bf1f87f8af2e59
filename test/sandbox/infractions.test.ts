/**
 * Pix infractions (MED) at the sandbox: the control route opens one against a paid charge (by
 * our reference, its id or its endToEndId; at most the paid amount), the random rate opens them
 * on payment, GET /v1/infractions?since= lists them and POST /v1/infractions/{id}/analysis
 * records the answer once (same answer: replay; another: 409), through HttpPixProvider.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ProviderError } from '../../core/provider';
import { chargeRequest, startReceiver, startSandbox, type SandboxHarness } from './harness';

let h: SandboxHarness;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeEach(async () => {
  receiver = await startReceiver();
});

afterEach(async () => {
  await h?.close();
  await receiver.close();
});

async function paidCharge(reference: string, amountCents = 1_500) {
  const charge = await h.provider.issueCharge(
    chargeRequest({ reference, amountCents, callbackUrl: receiver.callbackUrl }),
  );
  const pay = await h.call('POST', `/sandbox/charges/${charge.id}/pay`, {});
  expect(pay.status).toBe(200);
  return pay.json;
}

it('opens infractions against a paid charge, lists them since a time, and records one answer each', async () => {
  h = await startSandbox();
  const before = new Date(Date.now() - 1_000).toISOString();
  const paid = await paidCharge('ref-med');
  const whole = await h.call('POST', '/sandbox/charges/ref-med/infractions', {});
  expect(whole.status).toBe(201);
  expect(whole.json).toMatchObject({
    id: expect.stringMatching(/^sbx_inf_/),
    endToEndId: paid.endToEndId,
    reference: 'ref-med',
    amountCents: 1_500,
    reason: 'FRAUD',
    status: 'OPEN',
    decision: null,
  });
  expect(Date.parse(whole.json.analysisDeadline) - Date.parse(whole.json.openedAt)).toBe(7 * 86_400_000);
  const part = await h.call('POST', `/sandbox/charges/${paid.endToEndId}/infractions`, {
    amountCents: 400,
    reason: 'SCAM',
  });
  expect(part.json).toMatchObject({ amountCents: 400, reason: 'SCAM' });

  // Oldest first; two opened in the same millisecond may come in either order.
  expect((await h.provider.listInfractions(before)).map((i) => i.id).sort()).toEqual(
    [whole.json.id, part.json.id].sort(),
  );
  expect(await h.provider.listInfractions(new Date(Date.now() + 60_000).toISOString())).toEqual([]);

  const answered = await h.provider.answerInfraction(part.json.id, { decision: 'REJECT', justification: 'delivered' });
  expect(answered).toMatchObject({
    // A defence is for the PSP to decide (MED 2.0).
    status: 'IN_DEFENCE',
    closedAt: null,
    decision: 'REJECT',
    justification: 'delivered',
    answeredAt: expect.any(String),
  });
  // The same answer again is a replay; another one is refused.
  expect(await h.provider.answerInfraction(part.json.id, { decision: 'REJECT', justification: 'delivered' })).toEqual(
    answered,
  );
  await expect(
    h.provider.answerInfraction(part.json.id, { decision: 'ACCEPT', justification: 'oops' }),
  ).rejects.toMatchObject({ code: 'INFRACTION_ALREADY_ANSWERED', transient: false });
  await expect(
    h.provider.answerInfraction('sbx_inf_nope', { decision: 'ACCEPT', justification: 'x' }),
  ).rejects.toBeInstanceOf(ProviderError);
});

it('the PSP decides a defended case (UPHELD, DISMISSED) or cancels an open one; a planned decision applies by itself once due', async () => {
  let skewMs = 0;
  h = await startSandbox({ now: () => new Date(Date.now() + skewMs) });
  const before = new Date(Date.now() - 1_000).toISOString();
  await paidCharge('ref-psp-a');
  await paidCharge('ref-psp-b');
  await paidCharge('ref-psp-c');
  await paidCharge('ref-psp-d');
  const open = async (ref: string, body: object = {}) => {
    const opened = await h.call('POST', `/sandbox/charges/${ref}/infractions`, body);
    expect(opened.status).toBe(201);
    return opened.json.id as string;
  };
  const decide = (id: string, outcome: string) => h.call('POST', `/sandbox/infractions/${id}/decision`, { outcome });
  const upheld = await open('ref-psp-a');
  const dismissed = await open('ref-psp-b');
  const cancelled = await open('ref-psp-c');
  // Planned: dismissed an hour after it opens, once it is in defence too.
  const planned = await open('ref-psp-d', { decideAfterSeconds: 3_600, outcome: 'DISMISSED' });

  // Only a defended case is upheld or dismissed.
  const early = await decide(upheld, 'UPHELD');
  expect(early.status).toBe(409);
  expect(early.json.error).toMatchObject({ code: 'INFRACTION_NOT_IN_DEFENCE' });
  for (const id of [upheld, dismissed, planned])
    await h.provider.answerInfraction(id, { decision: 'REJECT', justification: 'delivered' });

  const u = await decide(upheld, 'UPHELD');
  expect(u.status).toBe(200);
  expect(u.json).toMatchObject({ status: 'ACCEPTED', decision: 'REJECT', closedAt: expect.any(String) });
  expect((await decide(upheld, 'UPHELD')).json).toEqual(u.json); // a replay
  expect((await decide(upheld, 'DISMISSED')).json.error).toMatchObject({ code: 'INFRACTION_CLOSED' });
  expect((await decide(dismissed, 'DISMISSED')).json).toMatchObject({ status: 'REJECTED' });
  // Cancelled while open: an answer after it is refused.
  expect((await decide(cancelled, 'CANCELLED')).json).toMatchObject({ status: 'CANCELLED', decision: null });
  await expect(
    h.provider.answerInfraction(cancelled, { decision: 'REJECT', justification: 'late' }),
  ).rejects.toMatchObject({ code: 'INFRACTION_CLOSED', transient: false });
  expect((await decide('sbx_inf_nope', 'CANCELLED')).status).toBe(404);
  expect((await h.call('POST', `/sandbox/infractions/${planned}/decision`, { outcome: 'LOST' })).status).toBe(400);

  const statusOf = async (id: string) => (await h.provider.listInfractions(before)).find((i) => i.id === id);
  expect(await statusOf(planned)).toMatchObject({ status: 'IN_DEFENCE', closedAt: null });
  skewMs = 3_601_000;
  expect(await statusOf(planned)).toMatchObject({ status: 'REJECTED', closedAt: expect.any(String) });
  // The /v1 view is the provider's: the sandbox's own plan is not in it.
  expect(await statusOf(planned)).not.toHaveProperty('autoDecision');
  expect((await statusOf(upheld))?.status).toBe('ACCEPTED');
  // The plan needs both fields.
  expect((await h.call('POST', '/sandbox/charges/ref-psp-a/infractions', { decideAfterSeconds: 5 })).status).toBe(400);
});

it('refuses what cannot be disputed: an unpaid charge, more than was paid, a bad body', async () => {
  h = await startSandbox();
  await h.provider.issueCharge(chargeRequest({ reference: 'ref-unpaid', callbackUrl: receiver.callbackUrl }));
  expect((await h.call('POST', '/sandbox/charges/ref-unpaid/infractions', {})).status).toBe(409);
  expect((await h.call('POST', '/sandbox/charges/nope/infractions', {})).status).toBe(404);
  await paidCharge('ref-paid', 1_000);
  expect((await h.call('POST', '/sandbox/charges/ref-paid/infractions', { amountCents: 1_001 })).status).toBe(400);
  expect((await h.call('POST', '/sandbox/charges/ref-paid/infractions', { reason: 'BORED' })).status).toBe(400);
  expect((await h.call('POST', '/sandbox/charges/ref-paid/infractions', { amountCents: 10, extra: 1 })).status).toBe(
    400,
  );
  expect(h.sandbox.state.infractions.size).toBe(0);
  expect((await h.call('GET', '/v1/infractions', undefined, {})).status).toBe(401);
});

it('openInfractionRate: every payment gets an infraction at rate 1, none at 0; kept across a restart', async () => {
  const dataFile = path.join(os.tmpdir(), `sandbox-med-${process.pid}-${Date.now()}.jsonl`);
  h = await startSandbox({ openInfractionRate: 1, dataFile });
  const paid = await paidCharge('ref-rate');
  const [infraction] = await h.provider.listInfractions(new Date(0).toISOString());
  expect(infraction).toMatchObject({ endToEndId: paid.endToEndId, amountCents: 1_500, status: 'OPEN' });
  await h.provider.answerInfraction(infraction.id, { decision: 'ACCEPT', justification: 'fraud' });
  await h.close();
  h = await startSandbox({ dataFile });
  expect(await h.provider.listInfractions(new Date(0).toISOString())).toEqual([
    expect.objectContaining({ id: infraction.id, status: 'ACCEPTED', justification: 'fraud' }),
  ]);
  await paidCharge('ref-no-rate');
  expect(await h.provider.listInfractions(new Date(0).toISOString())).toHaveLength(1);
  fs.rmSync(dataFile, { force: true });
});
