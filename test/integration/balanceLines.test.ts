/**
 * Issue 38 over HTTP against the real stack: a split charge claimed in full where the partner is
 * short. The partner lists and reads the case with its own part (share, held, owed) and cannot act
 * on it; another merchant sees nothing. Both merchants' balances are explained line by line by
 * GET /dashboard/balance/lines: every account's lines sum to its balance, each line's
 * balanceAfterCents follows from the next newer one, pages chain by cursor, bad input is 400.
 */
import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { accounts } from '../../core/ledger/accounts';
import { addUserToMerchant } from '../../db/identity/userAdmin';
import type { MerchantCredentials } from '../../db/identity/merchantAdmin';
import type { AppClient } from '../support/appClient';
import { waitFor } from '../support/env';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { completedWithdrawal, paidSellerCharge } from '../support/sellerMoney';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { signedInMerchant, signedInUser } from '../support/signedIn';

jest.setTimeout(180_000);

let stack: IntegrationStack;

beforeAll(async () => {
  stack = await startIntegrationStack();
});

afterAll(async () => {
  await stack?.stop();
});

afterEach(async () => {
  await assertLedgerInvariant(stack.sequelize);
});

/** A merchant with API credentials (charges, withdrawals to its own key) and a dashboard owner. */
async function platformMerchant(name: string) {
  const creds = await stack.createMerchant({
    name,
    document: '11144477735',
    pixKey: `financeiro+${crypto.randomUUID().slice(0, 8)}@linhas.com.br`,
    pixKeyType: 'EMAIL',
  });
  const { client, email } = await signedInUser(stack, { emailPrefix: 'lines' });
  await addUserToMerchant({ email, merchantId: creds.merchantId, role: 'owner' });
  return { creds, client, merchantId: creds.merchantId };
}

const sellerCharge = (creds: MerchantCredentials, body: Record<string, unknown>) =>
  paidSellerCharge(stack, creds, body);
const withdrawn = (creds: MerchantCredentials, amountCents: number) => completedWithdrawal(stack, creds, amountCents);

async function sandbox(method: string, path: string, body?: unknown) {
  const res = await fetch(`${stack.sandboxUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** The sandbox's DICT opens a claim on the charge (7 days to answer), the owner syncs it, the workflow blocks. */
async function claimed(owner: { client: AppClient; merchantId: string }, chargeId: string, amountCents: number) {
  const [row] = await stack.sequelize.query<{ provider_charge_id: string }>(
    `SELECT provider_charge_id FROM charges WHERE id = :id`,
    { replacements: { id: chargeId }, type: QueryTypes.SELECT },
  );
  const opened = await sandbox('POST', `/sandbox/charges/${row.provider_charge_id}/infractions`, { amountCents });
  expect(opened.status).toBe(201);
  const synced = await owner.client.call('POST', '/med/infractions/sync', { body: { merchantId: owner.merchantId } });
  expect(synced.status).toBe(200);
  const id = synced.body.data.find((i: any) => i.providerInfractionId === opened.body.id).id as string;
  await waitFor(async () => {
    const [r] = await stack.sequelize.query<{ blocked_at: Date | null }>(
      `SELECT blocked_at FROM med_infractions WHERE id = :id`,
      { replacements: { id }, type: QueryTypes.SELECT },
    );
    return r.blocked_at !== null;
  }, 'infraction blocked');
  return id;
}

async function ledgerOf(m: string) {
  const of = (code: string) => balance(stack.sequelize, code);
  return {
    availableCents: await of(accounts.merchantAvailable(m)),
    reservedCents: await of(accounts.merchantReserved(m)),
    blockedCents: await of(accounts.merchantBlocked(m)),
    owedCents: await of(accounts.merchantOwed(m)),
  };
}

interface Line {
  id: string;
  account: 'available' | 'reserved' | 'blocked' | 'owed';
  amountCents: number;
  balanceAfterCents: number;
  kind: string;
  reference: { type: string; id: string };
}

/** Every line, page by page (`limit` a page), checking each page's balances are the same snapshot figures. */
async function allLines(client: AppClient, merchantId: string, limit: number, account?: string) {
  const lines: Line[] = [];
  let cursor: string | null = null;
  let balances: Record<string, number> | undefined;
  let pages = 0;
  do {
    const qs = new URLSearchParams({ merchantId, limit: String(limit) });
    if (account) qs.set('account', account);
    if (cursor) qs.set('cursor', cursor);
    const res = await client.call('GET', `/dashboard/balance/lines?${qs}`);
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeLessThanOrEqual(limit);
    expect(res.body.pagination).toMatchObject({ limit, hasMore: res.body.pagination.nextCursor !== null });
    balances ??= res.body.balances;
    expect(res.body.balances).toEqual(balances);
    lines.push(...res.body.data);
    cursor = res.body.pagination.nextCursor;
    pages += 1;
  } while (cursor);
  return { lines, balances: balances as Record<string, number>, pages };
}

/** Lines explain balances: per account the lines sum to it, the newest's balanceAfter is it, and each older one follows. */
function expectExplained(lines: Line[], balances: Record<string, number>) {
  expect(new Set(lines.map((l) => l.id)).size).toBe(lines.length);
  const ids = lines.map((l) => BigInt(l.id));
  expect(ids).toEqual([...ids].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
  for (const account of ['available', 'reserved', 'blocked', 'owed'] as const) {
    const mine = lines.filter((l) => l.account === account);
    expect(mine.reduce((s, l) => s + l.amountCents, 0)).toBe(balances[`${account}Cents`]);
    let after = balances[`${account}Cents`];
    for (const l of mine) {
      expect(l.balanceAfterCents).toBe(after);
      after -= l.amountCents;
    }
    expect(after).toBe(0);
  }
}

it('a split partner short of money lists and reads the claim with its own part and cannot act on it; both balances are explained line by line', async () => {
  const owner = await platformMerchant('Loja das linhas');
  const partner = await platformMerchant('Parceiro das linhas');
  const stranger = await signedInMerchant(stack, { emailPrefix: 'lines-other', name: 'Outra loja' });

  // R$ 100,00, 1 % fee (100), R$ 30,00 to the partner: owner net 6 900, partner 3 000.
  const chargeId = await sellerCharge(owner.creds, {
    amountCents: 10_000,
    splits: [{ merchantId: partner.merchantId, amountCents: 3_000 }],
  });
  const ownerSaque = await withdrawn(owner.creds, 5_000);
  const partnerSaque = await withdrawn(partner.creds, 2_000);
  const id = await claimed(owner, chargeId, 10_000);
  // The partner is short: it holds the 1 000 it has and owes 2 000.
  expect(await ledgerOf(partner.merchantId)).toEqual({
    availableCents: 0,
    reservedCents: 0,
    blockedCents: 1_000,
    owedCents: -2_000,
  });

  // --- the partner sees the case, its own part only ---
  const partnerPart = { merchantId: partner.merchantId, shareCents: 3_000, heldCents: 1_000, owedCents: 2_000 };
  const listed = await partner.client.call('GET', `/med/infractions?merchantId=${partner.merchantId}`);
  expect(listed.status).toBe(200);
  expect(listed.body.pagination).toMatchObject({ total: 1, hasMore: false });
  const asPartner = {
    id,
    merchantId: owner.merchantId,
    chargeId,
    status: 'OPEN',
    disputedAmountCents: 10_000,
    blockedAmountCents: 1_000,
    parties: [partnerPart],
    viewer: { ...partnerPart, role: 'PARTNER' },
  };
  expect(listed.body.data).toEqual([expect.objectContaining(asPartner)]);
  const read = await partner.client.call('GET', `/med/infractions/${id}`);
  expect(read.status).toBe(200);
  expect(read.body).toMatchObject(asPartner);
  expect(JSON.stringify(read.body)).not.toContain('"shareCents":6900');
  const timeline = await partner.client.call('GET', `/med/infractions/${id}/timeline`);
  expect(timeline.status).toBe(200);
  expect(timeline.body.steps).toEqual(
    expect.arrayContaining([expect.objectContaining({ step: 'BLOCKED', amountCents: 1_000 })]),
  );
  // Filtered by status too.
  expect(
    (await partner.client.call('GET', `/med/infractions?merchantId=${partner.merchantId}&status=REJECTED`)).body.data,
  ).toEqual([]);

  // --- it cannot act on it: 403 INFRACTION_OWNER_ONLY, nothing changes ---
  for (const [path, body] of [
    [`/med/infractions/${id}/analysis`, { decision: 'REJECT', justification: 'não é meu' }],
    [`/med/infractions/${id}/evidence`, { contentType: 'application/pdf' }],
    [`/med/infractions/${id}/defence`, { text: 'não é meu' }],
  ] as const) {
    const res = await partner.client.call('POST', path, { body });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'INFRACTION_OWNER_ONLY', message: expect.any(String) });
  }
  const bulk = await partner.client.call('POST', '/med/infractions/analysis', {
    body: { items: [{ id, decision: 'REJECT', justification: 'não é meu' }] },
  });
  expect(bulk.body.results).toEqual([
    expect.objectContaining({ id, status: 403, error: expect.objectContaining({ code: 'INFRACTION_OWNER_ONLY' }) }),
  ]);

  // --- the owner sees every party's part ---
  const asOwner = await owner.client.call('GET', `/med/infractions/${id}`);
  expect(asOwner.body).toMatchObject({
    status: 'OPEN',
    blockedAmountCents: 1_900,
    parties: [{ merchantId: owner.merchantId, shareCents: 6_900, heldCents: 1_900, owedCents: 5_000 }, partnerPart],
    viewer: { merchantId: owner.merchantId, role: 'OWNER', shareCents: 6_900, heldCents: 1_900, owedCents: 5_000 },
  });

  // --- a merchant that is neither: 404 everywhere, nothing listed ---
  for (const path of [`/med/infractions/${id}`, `/med/infractions/${id}/timeline`]) {
    const res = await stranger.client.call('GET', path);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('INFRACTION_NOT_FOUND');
  }
  expect(
    (
      await stranger.client.call('POST', `/med/infractions/${id}/analysis`, {
        body: { decision: 'REJECT', justification: 'não é meu' },
      })
    ).status,
  ).toBe(404);
  expect((await stranger.client.call('GET', `/med/infractions?merchantId=${stranger.merchantId}`)).body.data).toEqual(
    [],
  );
  for (const path of [
    `/med/infractions?merchantId=${partner.merchantId}`,
    `/dashboard/balance/lines?merchantId=${partner.merchantId}`,
    `/dashboard/balance/lines?merchantId=${owner.merchantId}`,
  ]) {
    const res = await stranger.client.call('GET', path);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('MERCHANT_NOT_FOUND');
  }
  // A merchant with no ledger account yet: zeros, no lines.
  const empty = await stranger.client.call('GET', `/dashboard/balance/lines?merchantId=${stranger.merchantId}`);
  expect(empty.body).toEqual({
    merchantId: stranger.merchantId,
    balances: { availableCents: 0, reservedCents: 0, blockedCents: 0, owedCents: 0 },
    data: [],
    pagination: { limit: 20, hasMore: false, nextCursor: null },
  });

  // --- the partner's balance, line by line (pages of 2) ---
  const p = await allLines(partner.client, partner.merchantId, 2);
  expect(p.balances).toEqual(await ledgerOf(partner.merchantId));
  expect(p.pages).toBeGreaterThan(1);
  expectExplained(p.lines, p.balances);
  // Each movement's lines, with its kind and reference (within one transaction, in any order).
  const described = p.lines.map((l) => [l.kind, l.account, l.amountCents, l.reference.type, l.reference.id]);
  const expected = [
    ['CHARGE_PAID', 'available', 3_000, 'charge', chargeId],
    ['WITHDRAWAL_RESERVED', 'available', expect.any(Number), 'withdrawal', partnerSaque],
    ['WITHDRAWAL_RESERVED', 'reserved', expect.any(Number), 'withdrawal', partnerSaque],
    ['WITHDRAWAL_COMPLETED', 'reserved', expect.any(Number), 'withdrawal', partnerSaque],
    ['MED_BLOCKED', 'available', -1_000, 'med_infraction', id],
    ['MED_BLOCKED', 'blocked', 1_000, 'med_infraction', id],
    ['MED_BLOCKED', 'owed', -2_000, 'med_infraction', id],
  ];
  expect(described).toHaveLength(expected.length);
  expect(described).toEqual(expect.arrayContaining(expected));
  // Newest first: the claim's lines before the withdrawal's, the charge's last.
  expect(described.slice(0, 3).map((d) => d[0])).toEqual(['MED_BLOCKED', 'MED_BLOCKED', 'MED_BLOCKED']);
  expect(described[described.length - 1][0]).toBe('CHARGE_PAID');
  // One account alone: the same lines of it.
  const owedOnly = await allLines(partner.client, partner.merchantId, 100, 'owed');
  expect(owedOnly.pages).toBe(1);
  expect(owedOnly.lines).toEqual(p.lines.filter((l) => l.account === 'owed'));

  // --- the owner's balance ---
  const o = await allLines(owner.client, owner.merchantId, 3);
  expect(o.balances).toEqual(await ledgerOf(owner.merchantId));
  expect(o.balances).toEqual({ availableCents: 0, reservedCents: 0, blockedCents: 1_900, owedCents: -5_000 });
  expectExplained(o.lines, o.balances);
  expect(o.lines.filter((l) => l.reference.id === ownerSaque).map((l) => l.kind)).toEqual(
    expect.arrayContaining(['WITHDRAWAL_RESERVED', 'WITHDRAWAL_COMPLETED']),
  );

  // A later receipt of the partner goes to its debt first: its lines say so (MED_RECOVERED).
  const later = await sellerCharge(partner.creds, { amountCents: 1_000 });
  const after = await allLines(partner.client, partner.merchantId, 50);
  expectExplained(after.lines, after.balances);
  expect(after.balances).toEqual(await ledgerOf(partner.merchantId));
  expect(after.lines.slice(0, 5).map((l) => [l.kind, l.account, l.amountCents, l.reference.id])).toEqual(
    expect.arrayContaining([
      ['CHARGE_PAID', 'available', 990, later],
      ['MED_RECOVERED', 'available', -990, id],
      ['MED_RECOVERED', 'blocked', 990, id],
      ['MED_RECOVERED', 'owed', 990, id],
    ]),
  );

  // The owner rejects the claim: whatever it releases, the lines still explain both balances.
  const decided = await owner.client.call('POST', `/med/infractions/${id}/analysis`, {
    body: { decision: 'REJECT', justification: 'o cliente recebeu o produto' },
  });
  expect(decided.status).toBe(200);
  for (const m of [owner, partner]) {
    const all = await allLines(m.client, m.merchantId, 100);
    expect(all.balances).toEqual(await ledgerOf(m.merchantId));
    expectExplained(all.lines, all.balances);
  }
});

it('bad input is 400 VALIDATION_ERROR in the error envelope', async () => {
  const m = await signedInMerchant(stack, { emailPrefix: 'lines-bad' });
  for (const qs of ['limit=0', 'limit=101', 'cursor=abc', 'cursor=0', 'account=fees', 'other=1', '']) {
    const query = qs ? `merchantId=${m.merchantId}&${qs}` : '';
    const res = await m.client.call('GET', `/dashboard/balance/lines?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.any(String) });
  }
});
