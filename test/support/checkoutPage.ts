/**
 * Fixtures of the hosted checkout page tests: a signed-in owner with a merchant, and checkouts of
 * two kinds. `createP0PageCheckout`: a real partner checkout (POST /v1/checkouts with client
 * credentials, course prices inserted by test/support/checkouts.ts), whose charge lifecycle moves
 * it (paid, expired). `createPageCheckout`: a real PIX charge issued through the application API
 * (POST /charges) with a checkouts row inserted by SQL, for the cases the P0 route refuses to make
 * (free-form item names with markup, any metadata); the lifecycle moves it too (by charge_id).
 */
import crypto from 'node:crypto';
import { createApiCredential } from '../../db/identity/merchantAdmin';
import type { AppClient } from './appClient';
import { waitFor } from './env';
import type { StackClient } from './integrationStack';
import { chargeOf, checkoutBody, idemKey, postCheckout, sellableCourse, type Producer } from './checkouts';
import { signedInMerchant } from './signedIn';

export interface PageOwner {
  client: AppClient;
  merchantId: string;
}

export function pageOwner(stack: StackClient, name = 'Escola Aurora'): Promise<PageOwner> {
  return signedInMerchant(stack, { emailPrefix: 'page-owner', name });
}

export interface PageItem {
  name: string;
  quantity: number;
  unitAmountCents: number;
}

export interface PageCheckout {
  id: string;
  chargeId: string;
  copyPaste: string;
  amountCents: number;
  url: string;
}

export async function createPageCheckout(
  stack: StackClient,
  owner: PageOwner,
  opts: {
    items: PageItem[];
    returnUrl?: string | null;
    completionUrl?: string | null;
    kind?: 'P0' | 'SESSION';
    metadata?: Record<string, unknown>;
    externalId?: string;
  },
): Promise<PageCheckout> {
  const amountCents = opts.items.reduce((sum, i) => sum + i.quantity * i.unitAmountCents, 0);
  const charge = await owner.client.call('POST', '/charges', {
    body: { merchantId: owner.merchantId, amountCents, description: 'Checkout' },
    headers: { 'x-idempotency-key': `page-${crypto.randomUUID()}` },
  });
  if (charge.status !== 201) throw new Error(`POST /charges answered ${charge.status}: ${JSON.stringify(charge.body)}`);
  const id = crypto.randomUUID();
  await stack.sequelize.query(
    `INSERT INTO checkouts (id, merchant_id, kind, charge_id, amount_cents, return_url, completion_url, metadata, external_id, expires_at)
     VALUES (:id, :merchantId, :kind, :chargeId, :amountCents, :returnUrl, :completionUrl, :metadata, :externalId, :expiresAt)`,
    {
      replacements: {
        id,
        merchantId: owner.merchantId,
        kind: opts.kind ?? 'P0',
        chargeId: charge.body.id,
        amountCents,
        returnUrl: opts.returnUrl ?? null,
        completionUrl: opts.completionUrl ?? null,
        metadata: JSON.stringify(opts.metadata ?? {}),
        externalId: opts.externalId ?? null,
        expiresAt: charge.body.expiresAt,
      },
    },
  );
  let position = 0;
  for (const item of opts.items) {
    await stack.sequelize.query(
      'INSERT INTO checkout_items (id, checkout_id, position, name, quantity, unit_amount_cents) VALUES (:id, :checkoutId, :position, :name, :quantity, :unit)',
      {
        replacements: {
          id: crypto.randomUUID(),
          checkoutId: id,
          position: position++,
          name: item.name,
          quantity: item.quantity,
          unit: item.unitAmountCents,
        },
      },
    );
  }
  return {
    id,
    chargeId: charge.body.id,
    copyPaste: charge.body.pix.copyPaste,
    amountCents,
    url: `${stack.apiUrl}/c/${id}`,
  };
}

export async function checkoutRow(stack: StackClient, id: string): Promise<{ status: string; opened_at: Date | null }> {
  const [rows] = (await stack.sequelize.query('SELECT status, opened_at FROM checkouts WHERE id = :id', {
    replacements: { id },
  })) as [Array<{ status: string; opened_at: Date | null }>, unknown];
  return rows[0];
}

export async function setCheckoutStatus(
  stack: StackClient,
  id: string,
  status: 'PENDING' | 'PAID' | 'EXPIRED' | 'CANCELLED' | 'REFUNDED',
): Promise<void> {
  await stack.sequelize.query('UPDATE checkouts SET status = :status, updated_at = now() WHERE id = :id', {
    replacements: { id, status },
  });
}

/** The owner as a P0 partner too: a client credential with the checkout scopes (as test/support/checkouts.ts `producer`). */
export async function asProducer(owner: PageOwner, encryptionKey: string): Promise<Producer> {
  const issued = await createApiCredential(
    { merchantId: owner.merchantId, scopes: ['checkout:read', 'checkout:write'], name: 'checkout page tests' },
    encryptionKey,
  );
  return {
    client: owner.client,
    merchantId: owner.merchantId,
    creds: { merchantId: issued.merchantId, clientId: issued.clientId, clientSecret: issued.clientSecret },
  };
}

/**
 * A partner checkout made through POST /v1/checkouts: one published course with one price per
 * item (the course title is the item's name on the page).
 */
export async function createP0PageCheckout(
  stack: StackClient,
  producer: Producer,
  opts: { items: PageItem[]; returnUrl?: string; completionUrl?: string; expiresAt?: string },
): Promise<PageCheckout> {
  const items: { id: string; quantity: number }[] = [];
  for (const item of opts.items) {
    const { priceId } = await sellableCourse(stack.sequelize, producer.merchantId, item.unitAmountCents, item.name);
    items.push({ id: priceId, quantity: item.quantity });
  }
  const extra: Record<string, unknown> = {};
  if (opts.returnUrl) extra.returnUrl = opts.returnUrl;
  if (opts.completionUrl) extra.completionUrl = opts.completionUrl;
  if (opts.expiresAt) extra.expiresAt = opts.expiresAt;
  const res = await postCheckout(stack, producer.creds, checkoutBody(items, extra), idemKey());
  if (res.status !== 201) throw new Error(`POST /v1/checkouts answered ${res.status}: ${JSON.stringify(res.body)}`);
  const id = String(res.body.data.id).replace(/^bill_/, '');
  const chargeId = await chargeOf(stack.sequelize, id);
  const [rows] = (await stack.sequelize.query(
    "SELECT pix->>'copyPaste' AS copy_paste, amount_cents FROM charges WHERE id = :id",
    { replacements: { id: chargeId } },
  )) as [Array<{ copy_paste: string; amount_cents: string }>, unknown];
  return {
    id,
    chargeId,
    copyPaste: rows[0].copy_paste,
    amountCents: Number(rows[0].amount_cents),
    url: res.body.data.url,
  };
}

/**
 * Pays the checkout's charge at the sandbox (its control route, as `npm run gateway -- sandbox pay`
 * does) and waits until the charge lifecycle has moved the checkout to PAID.
 */
export async function payCheckoutInSandbox(stack: StackClient, checkout: PageCheckout): Promise<void> {
  const paid = await stack.pay(checkout.chargeId);
  if (paid.status !== 200) throw new Error(`sandbox pay answered ${paid.status}`);
  await waitForCheckoutStatus(stack, checkout.id, 'PAID');
}

export async function waitForCheckoutStatus(
  stack: StackClient,
  id: string,
  status: string,
  timeoutMs = 20_000,
): Promise<void> {
  await waitFor(
    async () => ((await checkoutRow(stack, id))?.status === status ? true : undefined),
    `checkout ${status}`,
    timeoutMs,
  );
}

export async function waitForChargePaid(stack: StackClient, chargeId: string): Promise<void> {
  await waitFor(async () => {
    const [rows] = (await stack.sequelize.query('SELECT status FROM charges WHERE id = :id', {
      replacements: { id: chargeId },
    })) as [Array<{ status: string }>, unknown];
    return rows[0]?.status === 'PAID' ? true : undefined;
  }, 'charge PAID');
}

export interface StatusStream {
  status: number;
  headers: Headers;
  /** The error envelope of a refused stream (null when it opened). */
  body: any;
  /** The `status` events read so far. */
  events: () => Array<{ status: string; completionUrl?: string }>;
  /** Reads until the server ends the stream; answers every `status` event it sent. */
  readToEnd: () => Promise<Array<{ status: string; completionUrl?: string }>>;
  /** Disconnects, as a closed tab does (the socket goes away). */
  close: () => Promise<void>;
}

/**
 * Opens GET /c/{id}/events. Once it answers 200, reads until the first `status` event: the stream
 * holds its slot on the server from then on. A refused stream is read whole (its JSON envelope).
 * Close every stream a test opens.
 */
export async function openStatusStream(
  baseUrl: string,
  checkoutId: string,
  headers: Record<string, string> = {},
): Promise<StatusStream> {
  const abort = new AbortController();
  const res = await fetch(`${baseUrl}/c/${checkoutId}/events`, { headers, signal: abort.signal });
  if (res.status !== 200) {
    const body = JSON.parse(await res.text());
    return {
      status: res.status,
      headers: res.headers,
      body,
      events: () => [],
      readToEnd: async () => [],
      close: async () => undefined,
    };
  }
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let done = false;
  const events = () => [...text.matchAll(/event: status\ndata: (.*)\n\n/g)].map((m) => JSON.parse(m[1]));
  const readOne = async () => {
    const chunk = await reader.read();
    if (chunk.done) done = true;
    else text += decoder.decode(chunk.value, { stream: true });
  };
  while (events().length < 1 && !done) await readOne();
  return {
    status: res.status,
    headers: res.headers,
    body: null,
    events,
    readToEnd: async () => {
      while (!done) await readOne();
      return events();
    },
    close: async () => {
      abort.abort();
      await reader.cancel().catch(() => undefined);
    },
  };
}
