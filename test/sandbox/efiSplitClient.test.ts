/**
 * The gateway's side of Efí's Split Pix against the sandbox over real HTTP: a charge's split built
 * by core/connections/efiSplitConfig.ts, written and linked by activities/provider/efi/efiSplits.ts
 * on the merchant's own connection (its own credentials), and the PSP dividing the paid cob so
 * that each account's balance moves by exactly its share: the merchant keeps the rest, a partner
 * and the platform (the sandbox's default account) receive theirs. Retried calls change nothing;
 * what Split Pix cannot pay is refused before any call; the PSP's refusals arrive under our codes.
 */
import { randomUUID } from 'node:crypto';
import { EfiSplits } from '../../activities/provider/efi/efiSplits';
import { PixApiConnection } from '../../activities/provider/pixApi/connection';
import {
  efiSplitConfigFor,
  splitConfigIdFor,
  SplitConfigErrorCodes,
  type ChargeToSplit,
  type PspAccountIdentity,
} from '../../core/connections/efiSplitConfig';
import { ProviderError } from '../../core/provider';
import { DEFAULT_ACCOUNT_NUMBER } from '../../sandbox/accounts';
import { DEV_PIX_CLIENT_ID, DEV_PIX_CLIENT_SECRET } from '../../sandbox/config';
import { SANDBOX_MERCHANT } from '../../sandbox/payer';
import { PixApiAudit } from '../support/pixApiAudit';
import { startEfiSandbox, type EfiHarness } from './efiHarness';
import { createCob, newTxid } from './pixApiHarness';

interface TestAccount {
  id: string;
  key: string;
  identity: PspAccountIdentity;
  /** Efí's Split Pix on this account's own connection. */
  splits: EfiSplits;
  token: string;
}

let h: EfiHarness;
let audit: PixApiAudit;
const connections: PixApiConnection[] = [];

beforeAll(async () => {
  // Every request the client sends is checked against docs/standards/efi-pix.yaml as the sandbox receives it.
  audit = await PixApiAudit.create();
  h = await startEfiSandbox({ observeApiRequest: audit.observe });
});
afterAll(async () => {
  await Promise.all(connections.map((c) => c.close()));
  await h.close();
});

const PLATFORM: PspAccountIdentity = { cnpj: SANDBOX_MERCHANT.cnpj, conta: DEFAULT_ACCOUNT_NUMBER };

function connect(clientId: string, clientSecret: string): PixApiConnection {
  const connection = new PixApiConnection({
    tokenUrl: `${h.url}/oauth/token`,
    clientId,
    clientSecret,
    tls: null,
    timeoutMs: 5_000,
    allowPlainHttp: true,
  });
  connections.push(connection);
  return connection;
}

async function newAccount(): Promise<TestAccount> {
  const made = await h.call('POST', '/sandbox/accounts', {});
  expect(made.status).toBe(201);
  const { id, key, cnpj, conta, clientId, clientSecret } = made.json;
  const connection = connect(clientId, clientSecret);
  return {
    id,
    key,
    identity: { cnpj, conta },
    splits: new EfiSplits(connection, h.url),
    token: await connection.tokens.token(),
  };
}

async function balanceCents(id: string): Promise<number> {
  return (await h.call('GET', `/sandbox/accounts/${id}`)).json.balanceCents as number;
}

async function providerError(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof ProviderError)) throw new Error(`expected a ProviderError, got ${String(err)}`);
  return err;
}

function charge(merchant: string, over: Partial<ChargeToSplit> = {}): ChargeToSplit {
  return { chargeId: randomUUID(), merchantId: merchant, amountCents: 10_000, feeCents: 500, splits: [], ...over };
}

describe("Efí's Split Pix from the gateway's side", () => {
  it('divides a paid charge between the merchant, a partner and the platform, each balance moving by its share; retries change nothing', async () => {
    const merchant = await newAccount();
    const partner = await newAccount();
    const platformBefore = await balanceCents('default');
    const c = charge('merchant', { splits: [{ merchantId: 'partner', amountCents: 1_000 }] });
    const body = efiSplitConfigFor(c, {
      platform: PLATFORM,
      recipientAccount: (id) => (id === 'partner' ? partner.identity : null),
    })!;
    const id = splitConfigIdFor(c.chargeId);

    const written = await merchant.splits.putSplitConfig(id, body);
    expect(written).toMatchObject({ id, status: 'ATIVA', split: { minhaParte: { tipo: 'fixo', valor: '85.00' } } });
    // A retry after a lost answer: the same configuration, no new revision.
    expect((await merchant.splits.putSplitConfig(id, body)).revisao).toBe(0);
    expect(await merchant.splits.getSplitConfig(id)).toMatchObject({ id, revisao: 0, split: body.split });

    const txid = await createCob(h, merchant.token, merchant.key, '100.00');
    expect(await merchant.splits.getCobSplit(txid)).toBeNull();
    await merchant.splits.linkCob(txid, id);
    await merchant.splits.linkCob(txid, id);
    expect(await merchant.splits.getCobSplit(txid)).toMatchObject({ txid, status: 'ATIVA', config: { id } });

    expect((await h.call('POST', `/sandbox/charges/${txid}/pay`, {})).status).toBe(200);
    expect(await balanceCents(merchant.id)).toBe(8_500);
    expect(await balanceCents(partner.id)).toBe(1_000);
    expect((await balanceCents('default')) - platformBefore).toBe(500);

    // The link retried after the payment (its first answer lost): done already, so success; nothing moves.
    await merchant.splits.linkCob(txid, id);
    expect([await balanceCents(merchant.id), await balanceCents(partner.id)]).toEqual([8_500, 1_000]);
    expect((await balanceCents('default')) - platformBefore).toBe(500);
  });

  it('refuses a recipient without an account at the PSP before any call', async () => {
    const configsBefore = h.sandbox.state.splitConfigs.size;
    const c = charge('merchant', { splits: [{ merchantId: 'elsewhere', amountCents: 1_000 }] });
    expect(() => efiSplitConfigFor(c, { platform: PLATFORM, recipientAccount: () => null })).toThrow(
      expect.objectContaining({ code: SplitConfigErrorCodes.recipientNotAtPsp, merchantId: 'elsewhere' }),
    );
    expect(h.sandbox.state.splitConfigs.size).toBe(configsBefore);
  });

  it('keeps a cob whole when its link is removed; an unlink retried is success', async () => {
    const merchant = await newAccount();
    const partner = await newAccount();
    const c = charge('merchant', { amountCents: 2_000, feeCents: 0, splits: [{ merchantId: 'p', amountCents: 300 }] });
    const body = efiSplitConfigFor(c, { platform: PLATFORM, recipientAccount: () => partner.identity })!;
    const id = splitConfigIdFor(c.chargeId);
    await merchant.splits.putSplitConfig(id, body);
    const txid = await createCob(h, merchant.token, merchant.key, '20.00');
    await merchant.splits.linkCob(txid, id);
    await merchant.splits.unlinkCob(txid);
    await merchant.splits.unlinkCob(txid);
    expect(await merchant.splits.getCobSplit(txid)).toBeNull();
    await h.call('POST', `/sandbox/charges/${txid}/pay`, {});
    expect([await balanceCents(merchant.id), await balanceCents(partner.id)]).toEqual([2_000, 0]);
  });

  it("answers the PSP's refusals under our codes, and sends nothing it would refuse for its form", async () => {
    const merchant = await newAccount();
    const other = await newAccount();
    const c = charge('merchant', { amountCents: 1_000, feeCents: 100 });
    const body = efiSplitConfigFor(c, { platform: PLATFORM, recipientAccount: () => null })!;
    const id = splitConfigIdFor(c.chargeId);
    await merchant.splits.putSplitConfig(id, body);

    // Another account sees neither the configuration nor may it take the id.
    expect(await other.splits.getSplitConfig(id)).toBeNull();
    expect((await providerError(other.splits.putSplitConfig(id, body))).code).toBe('SPLIT_REFUSED');
    // Fixed shares of 10.00 on a cob of 12.00: the PSP refuses the link, and the cob carries none.
    const wrongTotal = await createCob(h, merchant.token, merchant.key, '12.00');
    const refused = await providerError(merchant.splits.linkCob(wrongTotal, id));
    expect([refused.code, refused.transient, refused.httpStatus]).toEqual(['SPLIT_REFUSED', false, 400]);
    const unknownConfig = await providerError(merchant.splits.linkCob(wrongTotal, 'naoExiste1naoExiste1naoExiste1ab'));
    expect(unknownConfig.code).toBe('SPLIT_CONFIG_NOT_FOUND');
    const unknownCob = await providerError(merchant.splits.linkCob(newTxid(), id));
    expect(unknownCob.code).toBe('COB_NOT_FOUND');
    expect((await providerError(merchant.splits.getCobSplit(newTxid()))).code).toBe('COB_NOT_FOUND');
    // The PSP's words stay in detail, never in the message.
    expect(refused.message).not.toMatch(/somam|cobrança/);

    const configsBefore = h.sandbox.state.splitConfigs.size;
    for (const bad of [merchant.splits.putSplitConfig('has-dash', body), merchant.splits.linkCob('short', id)])
      expect((await providerError(bad)).code).toBe('PIX_API_INVALID_REQUEST');
    expect(h.sandbox.state.splitConfigs.size).toBe(configsBefore);
  });

  it('pays a platform fee alone (no partner) to the platform account', async () => {
    const merchant = await newAccount();
    const platformBefore = await balanceCents('default');
    const c = charge('merchant', { amountCents: 4_321, feeCents: 123 });
    const body = efiSplitConfigFor(c, { platform: PLATFORM, recipientAccount: () => null })!;
    const id = splitConfigIdFor(c.chargeId);
    const platform = new EfiSplits(connect(DEV_PIX_CLIENT_ID, DEV_PIX_CLIENT_SECRET), h.url);
    await merchant.splits.putSplitConfig(id, body);
    // The configuration is the merchant's: the platform's own connection does not see it.
    expect(await platform.getSplitConfig(id)).toBeNull();
    const txid = await createCob(h, merchant.token, merchant.key, '43.21');
    await merchant.splits.linkCob(txid, id);
    await h.call('POST', `/sandbox/charges/${txid}/pay`, {});
    expect(await balanceCents(merchant.id)).toBe(4_198);
    expect((await balanceCents('default')) - platformBefore).toBe(123);
  });

  it('sent every Split Pix route, each request as efi-pix.yaml describes it', () => {
    const { efi } = audit.report();
    expect(efi.violations).toEqual([]);
    const routes = new Set(efi.calls.map((c) => c.replace(/\/[a-zA-Z0-9]{26,35}(?=\/|$)/g, '/{id}')));
    expect([...routes].filter((r) => r.includes('/split/')).sort()).toEqual([
      'DELETE /v2/gn/split/cob/{id}/vinculo',
      'GET /v2/gn/split/cob/{id}',
      'GET /v2/gn/split/config/{id}',
      'PUT /v2/gn/split/cob/{id}/vinculo/{id}',
      'PUT /v2/gn/split/config/{id}',
    ]);
  });
});
