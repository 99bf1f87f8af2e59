/**
 * prepareLoad's work: what the load needs before it starts. Merchants through the operator CLI
 * (the main one with payouts enabled, a document and a Pix key; a second plain one), a partner
 * credential with the checkout scopes, a user registered over HTTP and made owner of both by the
 * CLI, webhook endpoints of each merchant on every receiver, a course price for P0 checkouts, and
 * funding charges paid so money can go out.
 */
import crypto from 'node:crypto';
import { subscribableEventTypes } from '../../../core/events/events';
import { LoadClient, type Credentials } from './client';
import type { OpContext } from './common';
import { payPix, waitSellerPaid } from './common';
import { PaidPools } from './pools';
import { RECEIVER_KINDS, startReceivers, type ReceiverKind, type Receivers } from './receivers';
import { UserSession } from './session';
import { LoadStats } from './stats';
import type { LoadOptions, LoadTarget } from './types';

export interface LoadMerchant {
  name: string;
  creds: Credentials;
  /** Its webhook endpoint on each receiver, by receiver kind. */
  webhooks: Partial<Record<ReceiverKind, string>>;
}

export interface LoadFixture {
  /** Prefixes every idempotency key and name of this run. */
  runTag: string;
  client: LoadClient;
  stats: LoadStats;
  receivers: Receivers;
  main: LoadMerchant;
  second: LoadMerchant;
  /** The main merchant's partner credential (checkout:read, checkout:write), for P0 checkouts. */
  partner: Credentials;
  /** The owner of both merchants on the application API. */
  user: UserSession;
  /** A published course's ONE_TIME price of the main merchant, and its amount. */
  price: { id: string; amountCents: number };
  pools: PaidPools;
}

/** Enough for many payout batches of up to 2,000 items of up to 1 BRL, withdrawals and settlements. */
const FUNDING_CENTS = 20_000_000;
/** Every receiver but the good one is spared the per-item payout events (thousands per batch). */
const BUSY_EVENTS = new Set(['payout.item.paid', 'payout.item.failed']);

function lastJsonLine(stdout: string): any {
  const line = stdout
    .split('\n')
    .map((l) => l.trim())
    .reverse()
    .find((l) => l.startsWith('{'));
  if (!line) throw new Error('the CLI printed no JSON');
  return JSON.parse(line);
}

async function cliJson(client: LoadClient, op: string, args: string[]): Promise<any> {
  const res = await client.cli(op, args);
  if (!res.ok) throw new Error(`prepareLoad: ${op} failed (the operator CLI)`);
  return lastJsonLine(res.stdout);
}

async function createMerchants(client: LoadClient, tag: string) {
  const main = await cliJson(client, 'prepare.merchant', [
    'merchant',
    'create',
    '--name',
    `Carga Principal ${tag}`,
    '--document',
    '11144477735',
    '--payouts-enabled',
    '--pix-key',
    `financeiro+${tag}@carga.example.com`,
    '--pix-key-type',
    'EMAIL',
    '--json',
  ]);
  const second = await cliJson(client, 'prepare.merchant', [
    'merchant',
    'create',
    '--name',
    `Carga Secundaria ${tag}`,
    '--document',
    '11222333000181',
    '--json',
  ]);
  const partner = await cliJson(client, 'prepare.credential', [
    'credential',
    'create',
    '--merchant',
    main.merchantId,
    '--scopes',
    'checkout:read,checkout:write',
    '--name',
    `chaos load ${tag}`,
    '--json',
  ]);
  const creds = (c: any): Credentials => ({
    merchantId: c.merchantId,
    clientId: c.clientId,
    clientSecret: c.clientSecret,
  });
  return { main: creds(main), second: creds(second), partner: creds(partner) };
}

async function signUpOwner(client: LoadClient, tag: string, merchantIds: string[]): Promise<UserSession> {
  const email = `carga.${tag}@example.com`;
  // Never logged or printed; it lives as long as the run.
  const password = crypto.randomBytes(18).toString('base64url');
  const registered = await client.call({
    op: 'prepare.register',
    base: 'api',
    method: 'POST',
    path: '/auth/register',
    body: { email, password, name: 'Operadora Carga' },
  });
  // 409: a retried registration whose first attempt did register.
  if (!registered.ok && registered.body?.error?.code !== 'EMAIL_ALREADY_REGISTERED')
    throw new Error(`prepareLoad: register failed: ${registered.status ?? 'no answer'}`);
  for (const merchantId of merchantIds) {
    const added = await client.cli('prepare.member', [
      'user',
      'add-to-merchant',
      '--email',
      email,
      '--merchant',
      merchantId,
      '--role',
      'owner',
    ]);
    if (!added.ok) throw new Error('prepareLoad: user add-to-merchant failed');
  }
  return new UserSession(client, email, password);
}

/** One endpoint per receiver; a webhook whose answer hid its secret (a replay) is replaced. */
async function registerWebhooks(client: LoadClient, receivers: Receivers, m: LoadMerchant, tag: string): Promise<void> {
  for (const kind of RECEIVER_KINDS) {
    const path = `/${tag}/${m.creds.merchantId}/${kind}`;
    const events = subscribableEventTypes.filter((e) => kind === 'good' || !BUSY_EVENTS.has(e));
    for (let tries = 1; ; tries++) {
      const res = await client.call({
        op: 'prepare.webhook',
        base: 'api',
        method: 'POST',
        path: '/sellers/webhooks',
        creds: m.creds,
        key: `${tag}-webhook-${m.creds.merchantId}-${kind}-${tries}`,
        body: { url: `${receivers[kind].url}${path}`, events, description: `chaos load: ${kind}` },
      });
      if (!res.ok) throw new Error(`prepareLoad: webhook registration failed: ${res.status ?? 'no answer'}`);
      if (res.body.secret) {
        receivers[kind].setSecret(path, res.body.secret);
        m.webhooks[kind] = res.body.id;
        break;
      }
      receivers[kind].setSecret(path, null);
      await client.call({
        op: 'prepare.webhook.delete',
        base: 'api',
        method: 'DELETE',
        path: `/sellers/webhooks/${res.body.id}`,
        creds: m.creds,
      });
      if (tries >= 3) throw new Error('prepareLoad: webhook secrets kept coming back hidden');
    }
  }
}

async function publishPrice(client: LoadClient, user: UserSession, merchantId: string, tag: string) {
  const amountCents = 4_990;
  const course = await client.call({
    op: 'prepare.course',
    base: 'api',
    method: 'POST',
    path: '/courses',
    user,
    key: `${tag}-course`,
    body: { merchantId, title: `Curso da carga ${tag}`, description: 'Carga do teste de caos', accessType: 'LIFETIME' },
  });
  if (!course.ok) throw new Error(`prepareLoad: course failed: ${course.status ?? 'no answer'}`);
  const price = await client.call({
    op: 'prepare.price',
    base: 'api',
    method: 'POST',
    path: `/courses/${course.body.id}/prices`,
    user,
    key: `${tag}-price`,
    body: { amountCents, type: 'ONE_TIME', active: true },
  });
  if (!price.ok) throw new Error(`prepareLoad: price failed: ${price.status ?? 'no answer'}`);
  const published = await client.call({
    op: 'prepare.publish',
    base: 'api',
    method: 'POST',
    path: `/courses/${course.body.id}/publish`,
    user,
    key: `${tag}-publish`,
  });
  if (!published.ok) throw new Error(`prepareLoad: publish failed: ${published.status ?? 'no answer'}`);
  return { id: price.body.id as string, amountCents };
}

async function fund(ctx: OpContext, creds: Credentials, tag: string): Promise<void> {
  const charge = await ctx.client.call({
    op: 'prepare.funding',
    base: 'api',
    method: 'POST',
    path: '/sellers/pix',
    creds,
    key: `${tag}-funding`,
    body: { amountCents: FUNDING_CENTS, description: 'chaos load funding' },
  });
  if (!charge.ok) throw new Error(`prepareLoad: funding charge failed: ${charge.status ?? 'no answer'}`);
  const paid = await payPix(ctx, 'prepare.funding.pay', charge.body.id);
  if (!paid.ok) throw new Error(`prepareLoad: funding payment failed: ${paid.status ?? 'no answer'}`);
  if (!(await waitSellerPaid(ctx, 'prepare.funding.poll', creds, charge.body.id)))
    throw new Error('prepareLoad: the funding charge never read PAID');
  ctx.stats.made('fundingCharge', charge.body.id);
}

export async function prepareFixture(target: LoadTarget, opts: LoadOptions): Promise<LoadFixture> {
  // Not from opts.random: the seeded sequence is the operations' alone.
  const runTag = `carga${crypto.randomBytes(4).toString('hex')}`;
  const stats = new LoadStats(opts.log);
  const client = new LoadClient(target, stats, {
    requestTimeoutMs: opts.requestTimeoutMs ?? 20_000,
    retryBudgetMs: opts.retryBudgetMs ?? 240_000,
  });
  const receivers = await startReceivers(opts.receiverHost);
  try {
    const { main, second, partner } = await createMerchants(client, runTag);
    const user = await signUpOwner(client, runTag, [main.merchantId, second.merchantId]);
    const fixture: LoadFixture = {
      runTag,
      client,
      stats,
      receivers,
      partner,
      user,
      main: { name: 'main', creds: main, webhooks: {} },
      second: { name: 'second', creds: second, webhooks: {} },
      price: { id: '', amountCents: 0 },
      pools: new PaidPools(),
    };
    for (const m of [fixture.main, fixture.second]) await registerWebhooks(client, receivers, m, runTag);
    fixture.price = await publishPrice(client, user, main.merchantId, runTag);
    await fund({ client, stats, fixture }, main, runTag);
    return fixture;
  } catch (err) {
    await Promise.all(Object.values(receivers).map((r) => r.close()));
    throw err;
  }
}
