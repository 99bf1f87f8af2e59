/**
 * Operator set-up for withdrawals on the real database: registering the merchant's own Pix key
 * (db/identity/merchantAdmin) and the CLI commands that wrap it (`merchant set-pix-key|freeze|unfreeze`).
 */
import crypto from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { createMerchantWithCredential, setMerchantPixKey } from '../../db/identity/merchantAdmin';
import { Merchant } from '../../db/models';
import { createSequelize } from '../../db/sequelize';
import { testEnv } from '../support/env';
import { BUILD_WAIT_MS, builtOperatorCli, type OperatorCli } from '../support/operatorCli';

jest.setTimeout(120_000);

const encryptionKey = crypto.randomBytes(32).toString('hex');
let sequelize: Sequelize;

beforeAll(() => {
  sequelize = createSequelize(testEnv().databaseUrl, { poolMax: 2 });
});

afterAll(async () => {
  await sequelize?.close();
});

const newMerchant = (document = '52998224725') =>
  createMerchantWithCredential(sequelize, { name: 'Loja Chave', document }, encryptionKey);

describe('setMerchantPixKey', () => {
  it('stores the key normalised, with the merchant as holder', async () => {
    const { merchantId } = await newMerchant();
    await setMerchantPixKey(sequelize, merchantId, { key: '+55 (11) 98888-7777', type: 'PHONE' });
    expect(await Merchant.findByPk(merchantId)).toMatchObject({
      pixKey: '+5511988887777',
      pixKeyType: 'PHONE',
      pixKeyHolderName: 'Loja Chave',
      pixKeyHolderDocument: '52998224725',
    });
  });

  it('accepts a CPF key only when it is the holder own document', async () => {
    const { merchantId } = await newMerchant();
    await expect(setMerchantPixKey(sequelize, merchantId, { key: '111.444.777-35', type: 'CPF' })).rejects.toThrow(
      /own document/,
    );
    await setMerchantPixKey(sequelize, merchantId, { key: '529.982.247-25', type: 'CPF' });
    expect((await Merchant.findByPk(merchantId))?.pixKey).toBe('52998224725');
  });

  it('refuses a malformed key and changes nothing', async () => {
    const { merchantId } = await newMerchant();
    await expect(setMerchantPixKey(sequelize, merchantId, { key: '52998224724', type: 'CPF' })).rejects.toThrow(
      /invalid Pix key/,
    );
    await expect(setMerchantPixKey(sequelize, merchantId, { key: 'x@y', type: 'EMAIL' })).rejects.toThrow(
      /invalid Pix key/,
    );
    await expect(setMerchantPixKey(sequelize, merchantId, { key: 'a@b.com', type: 'IBAN' })).rejects.toThrow(
      /key type/,
    );
    await expect(setMerchantPixKey(sequelize, crypto.randomUUID(), { key: 'a@b.com', type: 'EMAIL' })).rejects.toThrow(
      /no merchant/,
    );
    expect((await Merchant.findByPk(merchantId))?.pixKey).toBeNull();
  });

  it('creates a merchant with its key in one go, or not at all', async () => {
    const created = await createMerchantWithCredential(
      sequelize,
      { name: 'Loja Nova', pixKey: 'Pix@Loja.com', pixKeyType: 'EMAIL', withdrawalFeeCents: 90 },
      encryptionKey,
    );
    expect(await Merchant.findByPk(created.merchantId)).toMatchObject({
      pixKey: 'pix@loja.com',
      pixKeyType: 'EMAIL',
      withdrawalFeeCents: 90,
    });
    const before = await Merchant.count();
    await expect(
      createMerchantWithCredential(sequelize, { name: 'Loja Ruim', pixKey: 'nope', pixKeyType: 'EVP' }, encryptionKey),
    ).rejects.toThrow(/invalid Pix key/);
    expect(await Merchant.count()).toBe(before);
  });
});

describe('operator CLI', () => {
  let cli: OperatorCli;
  // The built CLI (test/support/operatorCli.ts), once the runner's production build is ready.
  beforeAll(async () => {
    cli = await builtOperatorCli();
  }, BUILD_WAIT_MS);
  const gateway = (...args: string[]) =>
    cli.run(args, { DATABASE_URL: testEnv().databaseUrl, CREDENTIALS_ENCRYPTION_KEY: encryptionKey });

  it('sets the Pix key, freezes and unfreezes, and explains a refusal without a stack', async () => {
    const { merchantId } = await newMerchant();
    const bad = await gateway('merchant', 'set-pix-key', merchantId, '--key', '+1 555 0100', '--type', 'phone');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^gateway: invalid Pix key: phone keys are \+55/);
    expect(bad.stderr).not.toMatch(/\n\s+at /);

    const ok = await gateway(
      'merchant',
      'set-pix-key',
      merchantId,
      '--key',
      '123E4567-E89B-12D3-A456-426614174000',
      '--type',
      'EVP',
    );
    expect(ok.status).toBe(0);
    expect((await Merchant.findByPk(merchantId))?.pixKey).toBe('123e4567-e89b-12d3-a456-426614174000');

    expect((await gateway('merchant', 'freeze', merchantId)).status).toBe(0);
    expect((await Merchant.findByPk(merchantId))?.withdrawalsFrozen).toBe(true);
    expect((await gateway('merchant', 'unfreeze', merchantId)).status).toBe(0);
    expect((await Merchant.findByPk(merchantId))?.withdrawalsFrozen).toBe(false);

    expect((await gateway('merchant', 'freeze')).status).toBe(1);
  });
});
