/**
 * The hosted checkout page over plain HTTP (no browser): the 404 page, the page's headers and
 * contents (only what the buyer needs), opened_at, the assets, /status, the SSE stream on a status
 * change, the caps on open streams (per checkout, per client IP), the QR, the dev-only "Simular pagamento" (and its absence in production), and the
 * branding route. Browser tests: test/browser/checkoutPage.test.ts.
 */
import { paymentSimulatorFor } from '../../api/checkouts/page/simulate';
import { brandColors, contrastRatio, formatBrl } from '../../api/checkouts/page/format';
import {
  checkoutRow,
  createPageCheckout,
  openStatusStream,
  pageOwner,
  payCheckoutInSandbox,
  setCheckoutStatus,
  waitForCheckoutStatus,
  type PageOwner,
  type StatusStream,
} from '../support/checkoutPage';
import { waitFor } from '../support/env';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { assertLedgerInvariant } from '../support/ledger';

jest.setTimeout(120_000);

let stack: IntegrationStack;
let owner: PageOwner;

beforeAll(async () => {
  // A stack of its own, not the worker's shared one (test/support/sharedStack.ts): it watches the API's own database queries.
  stack = await startIntegrationStack();
  owner = await pageOwner(stack);
});

afterAll(async () => {
  await stack?.stop();
});

afterEach(async () => {
  await assertLedgerInvariant(stack.sequelize);
});

const ITEMS = [
  { name: 'Curso de Fotografia', quantity: 1, unitAmountCents: 123_456 },
  { name: 'Apostila <impressa>', quantity: 2, unitAmountCents: 1_500 },
];

function expectPageHeaders(headers: Headers): void {
  const csp = headers.get('content-security-policy') ?? '';
  expect(csp).toMatch(/script-src 'self'(;|$)/);
  expect(csp).not.toContain('unsafe-inline');
  expect(headers.get('cache-control')).toBe('no-store');
  expect(headers.get('x-robots-tag')).toMatch(/noindex/);
  expect(headers.get('referrer-policy')).toBe('no-referrer');
  expect(headers.get('content-type')).toMatch(/^text\/html/);
}

it('unknown or malformed ids answer a Portuguese 404 page, no stack', async () => {
  for (const id of [
    '2b1c5a38-7f0e-4a43-9d3c-0c3c8a4d9e11',
    'bill_2b1c5a38-7f0e-4a43-9d3c-0c3c8a4d9e11',
    'nao-existe',
    'bill_123',
    "'%20OR%201=1",
  ]) {
    const res = await fetch(`${stack.apiUrl}/c/${id}`);
    expect(res.status).toBe(404);
    expectPageHeaders(res.headers);
    const html = await res.text();
    expect(html).toContain('<html lang="pt-BR">');
    expect(html).toContain('Checkout não encontrado');
    expect(html).not.toMatch(/at .*\.ts|Error|stack/);
  }
  const status = await fetch(`${stack.apiUrl}/c/nao-existe/status`);
  expect(status.status).toBe(404);
  expect(((await status.json()) as any).error.code).toBe('CHECKOUT_NOT_FOUND');
});

it('renders the items and total in BRL with the headers, shows nothing but what the buyer needs, marks opened_at once', async () => {
  const checkout = await createPageCheckout(stack, owner, {
    items: ITEMS,
    returnUrl: 'https://loja.example.com/carrinho',
    completionUrl: 'https://loja.example.com/obrigado',
    metadata: { segredo: 'valor-interno-xyz' },
    externalId: 'pedido-interno-987',
  });
  expect((await checkoutRow(stack, checkout.id)).opened_at).toBeNull();
  const res = await fetch(`${stack.apiUrl}/c/bill_${checkout.id}`);
  expect(res.status).toBe(200);
  expectPageHeaders(res.headers);
  const html = await res.text();
  expect(html).toContain('<html lang="pt-BR">');
  expect(html).toContain('Escola Aurora');
  expect(html).toContain('Curso de Fotografia');
  expect(html).toContain('Apostila &lt;impressa&gt;'); // escaped
  expect(html).toContain('R$ 1.234,56');
  expect(html).toContain(`R$ ${'1.264,56'}`); // 1234.56 + 2 × 15.00
  expect(formatBrl(126_456)).toBe('R$ 1.264,56');
  expect(html).toContain(`/c/${checkout.id}/qr.png`);
  expect(html).toContain('Copiar código');
  expect(html).toContain('aria-live="polite"');
  expect(html).toContain('href="https://loja.example.com/carrinho"');
  expect(html).toContain('Voltar à loja');
  expect(html).toContain(checkout.copyPaste.replace(/&/g, '&amp;'));
  expect(html).toContain('Simular pagamento'); // test environment
  for (const secret of [owner.merchantId, checkout.chargeId, 'valor-interno-xyz', 'pedido-interno-987', 'obrigado'])
    expect(html).not.toContain(secret);
  // No inline script: every <script> has a src.
  expect(html.match(/<script(?![^>]*\bsrc=)[^>]*>/g)).toBeNull();
  const first = (await checkoutRow(stack, checkout.id)).opened_at;
  expect(first).not.toBeNull();
  await fetch(`${stack.apiUrl}/c/${checkout.id}`);
  expect((await checkoutRow(stack, checkout.id)).opened_at).toEqual(first);
});

it('serves one stylesheet and one script with cache headers', async () => {
  const css = await fetch(`${stack.apiUrl}/c/assets/checkout.css`);
  expect(css.status).toBe(200);
  expect(css.headers.get('content-type')).toMatch(/^text\/css/);
  expect(css.headers.get('cache-control')).toMatch(/max-age=\d+/);
  expect((await css.text()).length).toBeLessThan(8_000);
  const js = await fetch(`${stack.apiUrl}/c/assets/checkout.js`);
  expect(js.headers.get('content-type')).toMatch(/javascript/);
  expect(js.headers.get('cache-control')).toMatch(/max-age=\d+/);
  expect((await js.text()).length).toBeLessThan(8_000);
});

it('/status and the QR follow the checkout; the SSE stream sends the change to PAID with completionUrl and ends', async () => {
  const checkout = await createPageCheckout(stack, owner, {
    items: [{ name: 'Curso', quantity: 1, unitAmountCents: 5_000 }],
    completionUrl: 'https://loja.example.com/obrigado',
  });
  expect(await (await fetch(`${stack.apiUrl}/c/${checkout.id}/status`)).json()).toEqual({ status: 'PENDING' });
  const qr = await fetch(`${stack.apiUrl}/c/${checkout.id}/qr.png`);
  expect(qr.status).toBe(200);
  expect(qr.headers.get('content-type')).toBe('image/png');
  expect(
    Buffer.from(await qr.arrayBuffer())
      .subarray(1, 4)
      .toString(),
  ).toBe('PNG');

  const stream = await fetch(`${stack.apiUrl}/c/${checkout.id}/events`);
  expect(stream.status).toBe(200);
  expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const reader = stream.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const events = () => [...text.matchAll(/event: status\ndata: (.*)\n\n/g)].map((m) => JSON.parse(m[1]));
  while (events().length < 1) text += decoder.decode((await reader.read()).value);
  expect(events()).toEqual([{ status: 'PENDING' }]);
  // Paid at the sandbox: the charge lifecycle moves the checkout (by its charge) to PAID.
  await payCheckoutInSandbox(stack, checkout);
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) break; // the server ends the stream after a final status
    text += decoder.decode(chunk.value);
  }
  expect(events()).toEqual([
    { status: 'PENDING' },
    { status: 'PAID', completionUrl: 'https://loja.example.com/obrigado' },
  ]);
  expect(await (await fetch(`${stack.apiUrl}/c/${checkout.id}/status`)).json()).toEqual({
    status: 'PAID',
    completionUrl: 'https://loja.example.com/obrigado',
  });
  expect((await fetch(`${stack.apiUrl}/c/${checkout.id}/qr.png`)).status).toBe(404);
});

/**
 * Every stream a test opens, closed at its end: also one that opened where a refusal was expected
 * (on code without the cap), which would otherwise keep its server from closing.
 */
function streams() {
  const all: StatusStream[] = [];
  const open = async (baseUrl: string, checkoutId: string, headers: Record<string, string> = {}) => {
    const stream = await openStatusStream(baseUrl, checkoutId, headers);
    all.push(stream);
    return stream;
  };
  return {
    open,
    /** Opens one once a slot is free: the server frees a slot when it sees the socket closed, a moment after the client closes it. */
    onceFree: (baseUrl: string, checkoutId: string, headers: Record<string, string> = {}) =>
      waitFor(async () => {
        const stream = await open(baseUrl, checkoutId, headers);
        return stream.status === 200 ? stream : undefined;
      }, 'a free stream slot'),
    closeAll: async () => {
      for (const stream of all) await stream.close();
    },
  };
}

it('at most 3 open live-status streams per checkout: the 4th is 429 TOO_MANY_STREAMS with Retry-After; a closed stream frees its slot', async () => {
  const checkout = await createPageCheckout(stack, owner, {
    items: [{ name: 'Curso', quantity: 1, unitAmountCents: 3_000 }],
  });
  const other = await createPageCheckout(stack, owner, {
    items: [{ name: 'Curso', quantity: 1, unitAmountCents: 3_000 }],
  });
  const tracked = streams();
  try {
    const first = [
      await tracked.open(stack.apiUrl, checkout.id),
      await tracked.open(stack.apiUrl, checkout.id),
      await tracked.open(stack.apiUrl, checkout.id),
    ];
    expect(first.map((s) => [s.status, s.events()])).toEqual(Array(3).fill([200, [{ status: 'PENDING' }]]));

    const refused = await tracked.open(stack.apiUrl, checkout.id);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.body).toEqual({
      error: {
        code: 'TOO_MANY_STREAMS',
        message: expect.stringContaining(`GET /c/${checkout.id}/status`),
        details: {
          scope: 'checkout',
          maxOpenStreams: 3,
          retryAfterSeconds: Number(refused.headers.get('retry-after')),
        },
        traceId: expect.any(String),
      },
    });
    // What the page falls back to still answers, and another checkout's streams are not affected.
    expect(await (await fetch(`${stack.apiUrl}/c/${checkout.id}/status`)).json()).toEqual({ status: 'PENDING' });
    expect((await tracked.open(stack.apiUrl, other.id)).status).toBe(200);

    // A buyer closes a tab: its slot is free again, and the cap holds once it is taken.
    await first[0].close();
    await tracked.onceFree(stack.apiUrl, checkout.id);
    expect((await tracked.open(stack.apiUrl, checkout.id)).status).toBe(429);
  } finally {
    await tracked.closeAll();
  }
});

it('the open streams of a checkout share one status read per tick; each gets PAID; streams the server ends free their slots', async () => {
  const checkout = await createPageCheckout(stack, owner, {
    items: [{ name: 'Curso', quantity: 1, unitAmountCents: 3_100 }],
    completionUrl: 'https://loja.example.com/ok',
  });
  const tracked = streams();
  try {
    const open = [
      await tracked.open(stack.apiUrl, checkout.id),
      await tracked.open(stack.apiUrl, checkout.id),
      await tracked.open(stack.apiUrl, checkout.id),
    ];
    // A slow database: every read of this checkout's status takes 1.5 poll intervals. Streams that
    // each polled would overlap their reads (one stream alone would, every second tick); one
    // shared read per checkout, never started while the last is running, never overlaps.
    let running = 0;
    let mostAtOnce = 0;
    let reads = 0;
    stack.sequelize.addHook(
      'beforeQuery',
      'slowStatusRead',
      async (options: { type?: string; replacements?: Record<string, unknown> }) => {
        if (options.type !== 'SELECT' || options.replacements?.id !== checkout.id) return;
        running++;
        mostAtOnce = Math.max(mostAtOnce, running);
        await new Promise((r) => setTimeout(r, 1_500));
        running--;
        reads++;
      },
    );
    try {
      await waitFor(async () => reads >= 2, 'two status reads');
    } finally {
      stack.sequelize.removeHook('beforeQuery', 'slowStatusRead');
    }
    expect(mostAtOnce).toBe(1);

    await payCheckoutInSandbox(stack, checkout);
    for (const s of open)
      expect(await s.readToEnd()).toEqual([
        { status: 'PENDING' },
        { status: 'PAID', completionUrl: 'https://loja.example.com/ok' },
      ]);
    // Ended by the server after the final status: their slots are free. A stream of the paid
    // checkout gets PAID and ends at once, and frees its slot too.
    for (let i = 0; i < 4; i++) {
      const stream = await tracked.onceFree(stack.apiUrl, checkout.id);
      expect(await stream.readToEnd()).toEqual([{ status: 'PAID', completionUrl: 'https://loja.example.com/ok' }]);
    }
  } finally {
    await tracked.closeAll();
  }
});

it('a stream the server ends after its lifetime frees its slot', async () => {
  const shortLived = await stack.extraApi({ checkoutStreams: { perCheckout: 1, maxLifetimeMs: 1_000 } });
  const tracked = streams();
  try {
    const checkout = await createPageCheckout(stack, owner, {
      items: [{ name: 'Curso', quantity: 1, unitAmountCents: 3_200 }],
    });
    const first = await tracked.open(shortLived.url, checkout.id);
    expect(first.status).toBe(200);
    expect((await tracked.open(shortLived.url, checkout.id)).status).toBe(429);
    expect(await first.readToEnd()).toEqual([{ status: 'PENDING' }]); // ended by the server, still PENDING
    await tracked.onceFree(shortLived.url, checkout.id);
  } finally {
    await tracked.closeAll();
    await shortLived.close();
  }
});

it('at most 20 open streams per client IP (the address express sees under TRUST_PROXY); another address has its own', async () => {
  const proxied = await stack.extraApi({ trustProxy: 1 });
  const from = (ip: string) => ({ 'x-forwarded-for': ip });
  const tracked = streams();
  try {
    const checkouts: string[] = [];
    for (let i = 0; i < 7; i++)
      checkouts.push(
        (
          await createPageCheckout(stack, owner, {
            items: [{ name: 'Curso', quantity: 1, unitAmountCents: 3_300 + i }],
          })
        ).id,
      );
    const spare = (
      await createPageCheckout(stack, owner, { items: [{ name: 'Curso', quantity: 1, unitAmountCents: 3_400 }] })
    ).id;
    // 20 streams from one address over 7 checkouts: 3 each on the first six, 2 on the last.
    const first: StatusStream[] = [];
    for (let i = 0; i < 20; i++) first.push(await tracked.open(proxied.url, checkouts[i % 7], from('203.0.113.7')));
    expect(first.map((s) => s.status)).toEqual(Array(20).fill(200));

    // The 21st, on a checkout nobody follows: refused for the address.
    const refused = await tracked.open(proxied.url, spare, from('203.0.113.7'));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.body.error).toMatchObject({
      code: 'TOO_MANY_STREAMS',
      details: { scope: 'client', maxOpenStreams: 20 },
    });
    // Another buyer behind the same proxy is another address.
    expect((await tracked.open(proxied.url, spare, from('198.51.100.9'))).status).toBe(200);

    // One of the first address's streams closes: it may open one again, and no more.
    await first[0].close(); // on checkouts[0]
    await tracked.onceFree(proxied.url, checkouts[0], from('203.0.113.7'));
    expect((await tracked.open(proxied.url, spare, from('203.0.113.7'))).status).toBe(429);
  } finally {
    await tracked.closeAll();
    await proxied.close();
  }
});

it('an expired or cancelled checkout shows its closed page without QR or code', async () => {
  const checkout = await createPageCheckout(stack, owner, {
    items: [{ name: 'Curso', quantity: 1, unitAmountCents: 900 }],
    returnUrl: 'https://loja.example.com/',
  });
  await setCheckoutStatus(stack, checkout.id, 'EXPIRED');
  const res = await fetch(`${stack.apiUrl}/c/${checkout.id}`);
  expect(res.status).toBe(200);
  const html = await res.text();
  expect(html).toContain('Este checkout expirou');
  expect(html).toContain('Voltar à loja');
  expect(html).not.toContain('qr.png');
  expect(html).not.toContain(checkout.copyPaste);
  expect(html).not.toContain('Simular pagamento');
  expect(await (await fetch(`${stack.apiUrl}/c/${checkout.id}/status`)).json()).toEqual({ status: 'EXPIRED' });
  // Cancelled through the charge: the lifecycle closes the checkout.
  const open = await createPageCheckout(stack, owner, {
    items: [{ name: 'Curso', quantity: 1, unitAmountCents: 900 }],
  });
  expect((await owner.client.call('POST', `/charges/${open.chargeId}/cancel`, { body: {} })).status).toBe(200);
  await waitForCheckoutStatus(stack, open.id, 'CANCELLED');
  const cancelled = await (await fetch(`${stack.apiUrl}/c/${open.id}`)).text();
  expect(cancelled).toContain('Este checkout foi cancelado');
  expect(cancelled).not.toContain('qr.png');
});

it('"Simular pagamento" pays the charge at the sandbox and comes back to the page; in production there is no button and the route is 404', async () => {
  const checkout = await createPageCheckout(stack, owner, {
    items: [{ name: 'Curso', quantity: 1, unitAmountCents: 2_000 }],
  });
  const res = await fetch(`${stack.apiUrl}/c/${checkout.id}/simulate-payment`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
  });
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toBe(`/c/${checkout.id}`);
  // A second click before the page has followed the payment: the sandbox answers 409 (already
  // paid), which is no provider error: back to the page as well (schemathesis found the 502).
  const again = await fetch(`${stack.apiUrl}/c/${checkout.id}/simulate-payment`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
  });
  expect(again.status).toBe(303);
  await waitForCheckoutStatus(stack, checkout.id, 'PAID');
  expect(await (await fetch(`${stack.apiUrl}/c/${checkout.id}`)).text()).toContain('Pagamento confirmado');

  expect(paymentSimulatorFor('production', 'http://127.0.0.1:4010', 'tok')).toBeNull();
  expect(paymentSimulatorFor('development', 'http://127.0.0.1:4010')).toEqual({
    sandboxBaseUrl: 'http://127.0.0.1:4010',
    controlToken: undefined,
  });
  const production = await stack.extraApi({ paymentSimulator: null });
  try {
    const other = await createPageCheckout(stack, owner, {
      items: [{ name: 'Curso', quantity: 1, unitAmountCents: 2_000 }],
    });
    expect(await (await fetch(`${production.url}/c/${other.id}`)).text()).not.toContain('Simular pagamento');
    const refused = await fetch(`${production.url}/c/${other.id}/simulate-payment`, {
      method: 'POST',
      redirect: 'manual',
    });
    expect(refused.status).toBe(404);
    expect(((await refused.json()) as any).error.code).toBe('NOT_FOUND');
    const [rows] = (await stack.sequelize.query('SELECT status FROM charges WHERE id = :id', {
      replacements: { id: other.chargeId },
    })) as [Array<{ status: string }>, unknown];
    expect(rows[0].status).toBe('PENDING');
  } finally {
    await production.close();
  }
});

it('PATCH /dashboard/merchant/branding sets the logo and colour the page shows; text colour keeps AA contrast; bad values 400', async () => {
  const brandOwner = await pageOwner(stack, 'Loja Amarela');
  const set = await brandOwner.client.call('PATCH', '/dashboard/merchant/branding', {
    body: { merchantId: brandOwner.merchantId, logoUrl: 'https://loja.example.com/logo.png', color: '#FFD500' },
  });
  expect(set.status).toBe(200);
  expect(set.body).toMatchObject({
    id: brandOwner.merchantId,
    name: 'Loja Amarela',
    logoUrl: 'https://loja.example.com/logo.png',
    color: '#ffd500',
  });
  const checkout = await createPageCheckout(stack, brandOwner, {
    items: [{ name: 'Curso', quantity: 1, unitAmountCents: 100 }],
  });
  const html = await (await fetch(`${stack.apiUrl}/c/${checkout.id}`)).text();
  expect(html).toContain('src="https://loja.example.com/logo.png" alt="Logotipo de Loja Amarela"');
  expect(html).toContain('--brand:#ffd500;--on-brand:#000000');
  for (const color of ['#ffd500', '#1a56db', '#777777', '#000000', '#ffffff', '#00ff00']) {
    const { brand, onBrand } = brandColors(color);
    expect(contrastRatio(brand, onBrand)).toBeGreaterThanOrEqual(4.5);
  }
  // Left out: unchanged; null: cleared.
  const cleared = await brandOwner.client.call('PATCH', '/dashboard/merchant/branding', {
    body: { merchantId: brandOwner.merchantId, logoUrl: null },
  });
  expect(cleared.body).toMatchObject({ logoUrl: null, color: '#ffd500' });
  for (const bad of [
    { logoUrl: 'http://loja.example.com/logo.png' },
    { logoUrl: 'javascript:alert(1)' },
    { color: 'red' },
    { color: '#12345' },
    { extra: 1 },
  ]) {
    const res = await brandOwner.client.call('PATCH', '/dashboard/merchant/branding', {
      body: { merchantId: brandOwner.merchantId, ...bad },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  }
  // Another merchant's id: 404, as for a merchant that does not exist.
  const stranger = await brandOwner.client.call('PATCH', '/dashboard/merchant/branding', {
    body: { merchantId: owner.merchantId, color: '#000000' },
  });
  expect(stranger.status).toBe(404);
  expect(stranger.body.error.code).toBe('MERCHANT_NOT_FOUND');
});
