/** Pure helpers of the hosted checkout page (api/checkouts/page/format.ts, store.ts, simulate.ts). */
import { brandColors, contrastRatio, escapeHtml, formatBrl, safeLink, safeLogo } from '../../api/checkouts/page/format';
import { renderCheckoutPage } from '../../api/checkouts/page/html';
import { paymentSimulatorFor } from '../../api/checkouts/page/simulate';
import { parseCheckoutId, type CheckoutPageView } from '../../api/checkouts/page/store';

it('formats BRL the pt-BR way', () => {
  expect(formatBrl(123_456)).toBe('R$ 1.234,56');
  expect(formatBrl(5)).toBe('R$ 0,05');
  expect(formatBrl(100_000_000)).toBe('R$ 1.000.000,00');
});

it('accepts a UUID or bill_<uuid>, nothing else', () => {
  const id = '2b1c5a38-7f0e-4a43-9d3c-0c3c8a4d9e11';
  expect(parseCheckoutId(id)).toBe(id);
  expect(parseCheckoutId(`bill_${id}`)).toBe(id);
  expect(parseCheckoutId(id.toUpperCase())).toBe(id);
  for (const bad of ['', 'bill_', 'bill_123', `${id}x`, `bill_bill_${id}`, `cs_${id}`])
    expect(parseCheckoutId(bad)).toBeNull();
});

it('the text on any brand colour reaches WCAG AA (4.5:1)', () => {
  for (let r = 0; r < 256; r += 17)
    for (let g = 0; g < 256; g += 17)
      for (let b = 0; b < 256; b += 17) {
        const hex = `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
        const { brand, onBrand } = brandColors(hex);
        expect(contrastRatio(brand, onBrand)).toBeGreaterThanOrEqual(4.5);
      }
  expect(brandColors(null).brand).toBe('#1a56db');
  expect(brandColors('red').brand).toBe('#1a56db');
});

it('links are http(s) only, logos https only; HTML is escaped', () => {
  expect(safeLink('javascript:alert(1)')).toBeNull();
  expect(safeLink('data:text/html,x')).toBeNull();
  expect(safeLink('not a url')).toBeNull();
  expect(safeLink('https://loja.example.com/a?b=1')).toBe('https://loja.example.com/a?b=1');
  expect(safeLogo('http://loja.example.com/logo.png')).toBeNull();
  expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
});

it('the page escapes merchant and item names and drops unsafe links', () => {
  const view: CheckoutPageView = {
    id: '2b1c5a38-7f0e-4a43-9d3c-0c3c8a4d9e11',
    status: 'PENDING',
    amountCents: 100,
    expiresAt: new Date('2026-03-01T15:00:00Z'),
    returnUrl: 'javascript:alert(1)',
    completionUrl: null,
    merchantName: '<script>alert(1)</script>',
    logoUrl: null,
    brandColor: null,
    chargeId: 'c',
    copyPaste: '000201"><img src=x>',
    items: [{ name: '<b>x</b>', quantity: 1, unitAmountCents: 100 }],
  };
  const html = renderCheckoutPage(view, { nonce: 'n', simulate: false });
  expect(html).not.toContain('<script>alert');
  expect(html).not.toContain('<b>x</b>');
  expect(html).not.toContain('<img src=x>');
  expect(html).not.toContain('javascript:');
  expect(html).not.toContain('Simular pagamento');
  expect(html).toContain('01/03/2026, 12:00'); // Brasília time
});

it('no payment simulator in production', () => {
  expect(paymentSimulatorFor('production', 'http://127.0.0.1:4010', 'token')).toBeNull();
  expect(paymentSimulatorFor('test', 'http://127.0.0.1:4010', '')).toEqual({
    sandboxBaseUrl: 'http://127.0.0.1:4010',
    controlToken: undefined,
  });
});
