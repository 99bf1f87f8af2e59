/**
 * The hosted checkout page over plain HTTP (no browser): the 404 page, the page's headers and
 * contents (only what the buyer needs), opened_at, the assets, /status, the SSE stream on a status
 * change, the QR, the dev-only "Simular pagamento" (and its absence in production), and the
 * branding route. Browser tests: test/browser/checkoutPage.test.ts.
 */
import { paymentSimulatorFor } from '../../api/checkoutPage/simulate';
import { brandColors, contrastRatio, formatBrl } from '../../api/checkoutPage/format';
import { checkoutRow, createPageCheckout, pageOwner, payCheckoutInSandbox, setCheckoutStatus, waitForCheckoutStatus, type PageOwner } from '../support/checkoutPage';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { assertLedgerInvariant } from '../support/ledger';

jest.setTimeout(120_000);

let stack: IntegrationStack;
let owner: PageOwner;

beforeAll(async () => {
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
  for (const id of ['2b1c5a38-7f0e-4a43-9d3c-0c3c8a4d9e11', 'bill_2b1c5a38-7f0e-4a43-9d3c-0c3c8a4d9e11', 'nao-existe', 'bill_123', "'%20OR%201=1"]) {
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
  for (const secret of [owner.merchantId, checkout.chargeId, 'valor-interno-xyz', 'pedido-interno-987', 'obrigado']) expect(html).not.toContain(secret);
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
  const checkout = await createPageCheckout(stack, owner, { items: [{ name: 'Curso', quantity: 1, unitAmountCents: 5_000 }], completionUrl: 'https://loja.example.com/obrigado' });
  expect(await (await fetch(`${stack.apiUrl}/c/${checkout.id}/status`)).json()).toEqual({ status: 'PENDING' });
  const qr = await fetch(`${stack.apiUrl}/c/${checkout.id}/qr.png`);
  expect(qr.status).toBe(200);
  expect(qr.headers.get('content-type')).toBe('image/png');
  expect(Buffer.from(await qr.arrayBuffer()).subarray(1, 4).toString()).toBe('PNG');

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
  expect(events()).toEqual([{ status: 'PENDING' }, { status: 'PAID', completionUrl: 'https://loja.example.com/obrigado' }]);
  expect(await (await fetch(`${stack.apiUrl}/c/${checkout.id}/status`)).json()).toEqual({ status: 'PAID', completionUrl: 'https://loja.example.com/obrigado' });
  expect((await fetch(`${stack.apiUrl}/c/${checkout.id}/qr.png`)).status).toBe(404);
});

it('an expired or cancelled checkout shows its closed page without QR or code', async () => {
  const checkout = await createPageCheckout(stack, owner, { items: [{ name: 'Curso', quantity: 1, unitAmountCents: 900 }], returnUrl: 'https://loja.example.com/' });
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
  const open = await createPageCheckout(stack, owner, { items: [{ name: 'Curso', quantity: 1, unitAmountCents: 900 }] });
  expect((await owner.client.call('POST', `/charges/${open.chargeId}/cancel`, { body: {} })).status).toBe(200);
  await waitForCheckoutStatus(stack, open.id, 'CANCELLED');
  const cancelled = await (await fetch(`${stack.apiUrl}/c/${open.id}`)).text();
  expect(cancelled).toContain('Este checkout foi cancelado');
  expect(cancelled).not.toContain('qr.png');
});

it('"Simular pagamento" pays the charge at the sandbox and comes back to the page; in production there is no button and the route is 404', async () => {
  const checkout = await createPageCheckout(stack, owner, { items: [{ name: 'Curso', quantity: 1, unitAmountCents: 2_000 }] });
  const res = await fetch(`${stack.apiUrl}/c/${checkout.id}/simulate-payment`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toBe(`/c/${checkout.id}`);
  // A second click before the page has followed the payment: the sandbox answers 409 (already
  // paid), which is no provider error: back to the page as well (schemathesis found the 502).
  const again = await fetch(`${stack.apiUrl}/c/${checkout.id}/simulate-payment`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
  expect(again.status).toBe(303);
  await waitForCheckoutStatus(stack, checkout.id, 'PAID');
  expect(await (await fetch(`${stack.apiUrl}/c/${checkout.id}`)).text()).toContain('Pagamento confirmado');

  expect(paymentSimulatorFor('production', 'http://127.0.0.1:4010', 'tok')).toBeNull();
  expect(paymentSimulatorFor('development', 'http://127.0.0.1:4010')).toEqual({ sandboxBaseUrl: 'http://127.0.0.1:4010', controlToken: undefined });
  const production = await stack.extraApi({ paymentSimulator: null });
  try {
    const other = await createPageCheckout(stack, owner, { items: [{ name: 'Curso', quantity: 1, unitAmountCents: 2_000 }] });
    expect(await (await fetch(`${production.url}/c/${other.id}`)).text()).not.toContain('Simular pagamento');
    const refused = await fetch(`${production.url}/c/${other.id}/simulate-payment`, { method: 'POST', redirect: 'manual' });
    expect(refused.status).toBe(404);
    expect(((await refused.json()) as any).error.code).toBe('NOT_FOUND');
    const [rows] = (await stack.sequelize.query('SELECT status FROM charges WHERE id = :id', { replacements: { id: other.chargeId } })) as [Array<{ status: string }>, unknown];
    expect(rows[0].status).toBe('PENDING');
  } finally {
    await production.close();
  }
});

it('PATCH /dashboard/merchant/branding sets the logo and colour the page shows; text colour keeps AA contrast; bad values 400', async () => {
  const brandOwner = await pageOwner(stack, 'Loja Amarela');
  const set = await brandOwner.client.call('PATCH', '/dashboard/merchant/branding', { body: { merchantId: brandOwner.merchantId, logoUrl: 'https://loja.example.com/logo.png', color: '#FFD500' } });
  expect(set.status).toBe(200);
  expect(set.body).toMatchObject({ id: brandOwner.merchantId, name: 'Loja Amarela', logoUrl: 'https://loja.example.com/logo.png', color: '#ffd500' });
  const checkout = await createPageCheckout(stack, brandOwner, { items: [{ name: 'Curso', quantity: 1, unitAmountCents: 100 }] });
  const html = await (await fetch(`${stack.apiUrl}/c/${checkout.id}`)).text();
  expect(html).toContain('src="https://loja.example.com/logo.png" alt="Logotipo de Loja Amarela"');
  expect(html).toContain('--brand:#ffd500;--on-brand:#000000');
  for (const color of ['#ffd500', '#1a56db', '#777777', '#000000', '#ffffff', '#00ff00']) {
    const { brand, onBrand } = brandColors(color);
    expect(contrastRatio(brand, onBrand)).toBeGreaterThanOrEqual(4.5);
  }
  // Left out: unchanged; null: cleared.
  const cleared = await brandOwner.client.call('PATCH', '/dashboard/merchant/branding', { body: { merchantId: brandOwner.merchantId, logoUrl: null } });
  expect(cleared.body).toMatchObject({ logoUrl: null, color: '#ffd500' });
  for (const bad of [{ logoUrl: 'http://loja.example.com/logo.png' }, { logoUrl: 'javascript:alert(1)' }, { color: 'red' }, { color: '#12345' }, { extra: 1 }]) {
    const res = await brandOwner.client.call('PATCH', '/dashboard/merchant/branding', { body: { merchantId: brandOwner.merchantId, ...bad } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  }
  // Another merchant's id: 404, as for a merchant that does not exist.
  const stranger = await brandOwner.client.call('PATCH', '/dashboard/merchant/branding', { body: { merchantId: owner.merchantId, color: '#000000' } });
  expect(stranger.status).toBe(404);
  expect(stranger.body.error.code).toBe('MERCHANT_NOT_FOUND');
});
