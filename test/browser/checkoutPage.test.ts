/**
 * The hosted checkout page in real headless Chromium (Debian's chromium driven by playwright-core;
 * test/support/browser.ts), against the integration stack on 127.0.0.1: the amount and items, the
 * QR image read back by zbarimg equal to the copy-paste code shown, a sandbox payment flipping the
 * open page to paid and on to completionUrl (a local server), the page falling back to polling when
 * its live stream is refused, the expired page, the copy button by keyboard. A screenshot of each state lands in test-artifacts/checkout/.
 */
import { execFileSync } from 'node:child_process';
import { runTool } from '../support/externalTools';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { artifactDir, ensureChromium, launchBrowser, type RunningBrowser } from '../support/browser';
import {
  asProducer,
  createP0PageCheckout,
  openStatusStream,
  pageOwner,
  payCheckoutInSandbox,
  waitForCheckoutStatus,
  type PageCheckout,
  type PageOwner,
  type StatusStream,
} from '../support/checkoutPage';
import type { Producer } from '../support/checkouts';
import { waitFor } from '../support/env';
import { sharedIntegrationStack, type SharedStack } from '../support/sharedStack';
import { assertLedgerInvariant } from '../support/ledger';

jest.setTimeout(180_000);

// Functions passed to page.evaluate run in the browser; this project compiles without the DOM library.
declare const document: any;
declare const navigator: any;
declare function getComputedStyle(el: unknown): any;

const available = ensureChromium();
const describeBrowser = available ? describe : describe.skip;

describeBrowser('hosted checkout page in Chromium', () => {
  let stack: SharedStack;
  let owner: PageOwner;
  let producer: Producer;
  /** Made first with the shortest expiry the P0 route allows (1 minute): expired by the last test. */
  let expiring: PageCheckout;
  let browser: RunningBrowser;
  let shop: { server: Server; url: string; visits: string[] };
  const shots = artifactDir('checkout');

  beforeAll(async () => {
    // zbarimg (zbar-tools) reads the QR back: a decoder we did not write.
    execFileSync('bash', [path.resolve(__dirname, '..', '..', 'scripts', 'lib', 'debianTools.sh'), '--ensure'], {
      stdio: 'inherit',
    });
    stack = await sharedIntegrationStack();
    owner = await pageOwner(stack, 'Escola Aurora');
    await owner.client.call('PATCH', '/dashboard/merchant/branding', {
      body: { merchantId: owner.merchantId, color: '#0a7d5a' },
    });
    producer = await asProducer(owner, stack.encryptionKey);
    browser = await launchBrowser();
    // The merchant's shop: where returnUrl and completionUrl point.
    const visits: string[] = [];
    const server = http.createServer((req, res) => {
      visits.push(req.url ?? '');
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(
        `<!doctype html><html lang="pt-BR"><title>Loja</title><h1>${req.url === '/obrigado' ? 'Obrigado pela compra' : 'Loja'}</h1></html>`,
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    shop = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, visits };
    expiring = await createP0PageCheckout(stack, producer, {
      items: [{ name: 'Curso Relâmpago', quantity: 1, unitAmountCents: 990 }],
      returnUrl: `${shop.url}/carrinho`,
      expiresAt: new Date(Date.now() + 62_000).toISOString(),
    });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => shop?.server.close(r));
    await stack?.stop();
  });

  afterEach(async () => {
    await assertLedgerInvariant(stack.sequelize);
  });

  it('renders the amount and items; the QR image decodes to the copy-paste code shown', async () => {
    const checkout = await createP0PageCheckout(stack, producer, {
      items: [
        { name: 'Curso de Fotografia', quantity: 1, unitAmountCents: 123_456 },
        { name: 'Apostila impressa', quantity: 2, unitAmountCents: 1_500 },
      ],
      returnUrl: `${shop.url}/carrinho`,
    });
    const context = await browser.context();
    const page = await context.newPage();
    await page.goto(checkout.url);
    expect(await page.getAttribute('html', 'lang')).toBe('pt-BR');
    expect(await page.textContent('h1')).toBe('Pague com Pix');
    expect(await page.textContent('#total')).toBe('R$ 1.264,56');
    const rows = await page.$$eval('table.items tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
    );
    expect(rows).toEqual([
      ['Curso de Fotografia', '1', 'R$ 1.234,56'],
      ['Apostila impressa', '2', 'R$ 15,00'],
    ]);
    expect(await page.textContent('#status')).toBe('Aguardando pagamento');
    expect(await page.getAttribute('#qr', 'alt')).toContain('QR code Pix');
    // The image as the browser drew it, decoded by zbarimg.
    await page.waitForFunction(() => {
      const img = document.getElementById('qr');
      return Boolean(img && img.complete && img.naturalWidth > 0);
    });
    const qrFile = path.join(shots, 'qr.png');
    await page.locator('#qr').screenshot({ path: qrFile });
    // stderr captured: zbarimg prints D-Bus noise on machines without a system bus.
    const decoded = (await runTool('zbarimg', ['--quiet', '--raw', qrFile])).trim();
    const shown = await page.inputValue('#pix-code');
    expect(shown).toBe(checkout.copyPaste);
    expect(decoded).toBe(shown);
    await page.screenshot({ path: path.join(shots, '1-pending.png'), fullPage: true });
    await context.close();
  });

  it('keyboard: Tab reaches the copy button, Enter copies the code', async () => {
    const checkout = await createP0PageCheckout(stack, producer, {
      items: [{ name: 'Curso', quantity: 1, unitAmountCents: 4_990 }],
      returnUrl: `${shop.url}/carrinho`,
    });
    const context = await browser.context();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.apiUrl });
    const page = await context.newPage();
    await page.goto(checkout.url);
    await page.waitForSelector('#copy:not([hidden])');
    const visited: string[] = [];
    for (let i = 0; i < 10; i++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(
        () => document.activeElement?.id || document.activeElement?.textContent || '',
      );
      visited.push(focused);
      if (focused === 'copy') break;
    }
    expect(visited).toContain('pix-code'); // the field comes first, selectable by keyboard too
    expect(visited[visited.length - 1]).toBe('copy');
    // The focus is visible: an outline is drawn on the focused button.
    expect(await page.$eval('#copy', (el) => getComputedStyle(el).outlineStyle)).not.toBe('none');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.getElementById('copy')?.textContent === 'Código copiado');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(checkout.copyPaste);
    await page.screenshot({ path: path.join(shots, '2-copied.png'), fullPage: true });
    await context.close();
  });

  it('paying in the sandbox flips the open page to paid and redirects to completionUrl', async () => {
    const checkout = await createP0PageCheckout(stack, producer, {
      items: [{ name: 'Curso de Violão', quantity: 1, unitAmountCents: 19_900 }],
      returnUrl: `${shop.url}/carrinho`,
      completionUrl: `${shop.url}/obrigado`,
    });
    const context = await browser.context();
    const page = await context.newPage();
    await page.goto(checkout.url);
    await page.waitForSelector('#copy:not([hidden])'); // the script runs: live status is on
    await payCheckoutInSandbox(stack, checkout);
    await page.waitForFunction(() =>
      document.getElementById('status')?.textContent?.startsWith('Pagamento confirmado'),
    );
    expect(await page.textContent('h1')).toBe('Pagamento confirmado');
    expect(await page.isVisible('#qr')).toBe(false);
    await page.screenshot({ path: path.join(shots, '3-paid.png'), fullPage: true });
    await page.waitForURL(`${shop.url}/obrigado`);
    expect(await page.textContent('h1')).toBe('Obrigado pela compra');
    expect(shop.visits).toContain('/obrigado');
    await context.close();
  });

  it("its live stream refused (429: the checkout's three streams are open elsewhere), the page polls /status and still turns paid", async () => {
    const checkout = await createP0PageCheckout(stack, producer, {
      items: [{ name: 'Curso de Piano', quantity: 1, unitAmountCents: 9_900 }],
      returnUrl: `${shop.url}/carrinho`,
    });
    const held: StatusStream[] = [];
    try {
      for (let i = 0; i < 3; i++) held.push(await openStatusStream(stack.apiUrl, checkout.id));
      expect(held.map((s) => s.status)).toEqual([200, 200, 200]);
      const context = await browser.context();
      const page = await context.newPage();
      const answers: Array<{ path: string; status: number }> = [];
      page.on('response', (r) => {
        const { pathname } = new URL(r.url());
        if (/\/(events|status)$/.test(pathname)) answers.push({ path: pathname.split('/').pop()!, status: r.status() });
      });
      await page.goto(checkout.url);
      await waitFor(
        async () => answers.some((a) => a.path === 'status' && a.status === 200),
        'the page to poll /status',
      );
      // One refused stream (EventSource does not retry a 429), then polling only.
      expect(answers.filter((a) => a.path === 'events')).toEqual([{ path: 'events', status: 429 }]);
      await payCheckoutInSandbox(stack, checkout);
      await page.waitForFunction(() =>
        document.getElementById('status')?.textContent?.startsWith('Pagamento confirmado'),
      );
      expect(await page.textContent('h1')).toBe('Pagamento confirmado');
      expect(await page.isVisible('#qr')).toBe(false);
      await context.close();
    } finally {
      for (const s of held) await s.close();
    }
  });

  it('an unknown checkout shows the not-found page', async () => {
    const context = await browser.context();
    const page = await context.newPage();
    const res = await page.goto(`${stack.apiUrl}/c/bill_00000000-0000-4000-8000-000000000000`);
    expect(res?.status()).toBe(404);
    expect(await page.textContent('h1')).toBe('Checkout não encontrado');
    await page.screenshot({ path: path.join(shots, '5-not-found.png'), fullPage: true });
    await context.close();
  });
  it('a checkout the charge lifecycle expired shows the expired page, no QR', async () => {
    // Real expiry: the ChargeLifecycle timer fires and its hook moves the checkout to EXPIRED.
    await waitForCheckoutStatus(stack, expiring.id, 'EXPIRED', 120_000);
    const context = await browser.context();
    const page = await context.newPage();
    await page.goto(expiring.url);
    expect(await page.textContent('h1')).toBe('Este checkout expirou');
    expect(await page.$('#qr')).toBeNull();
    expect(await page.$('#pix-code')).toBeNull();
    await page.screenshot({ path: path.join(shots, '4-expired.png'), fullPage: true });
    await page.click('text=Voltar à loja');
    await page.waitForURL(`${shop.url}/carrinho`);
    await context.close();
  });
});

if (!available) {
  it('SKIPPED: Chromium cannot be installed on this machine (see the message above)', () => {
    expect(available).toBe(false);
  });
}
