import { accounts } from '../../core/ledger/accounts';
import {
  assertBalanced,
  withdrawalCompletedEntry,
  withdrawalReleasedEntry,
  withdrawalReservedEntry,
} from '../../core/ledger/postings';
import { normalizePixKey } from '../../core/pixKeys';
import { maskDocument, maskMiddle, maskPixKey } from '../../core/masking';
import { presentWithdrawal, publicTransferReference, type WithdrawalSource } from '../../core/withdrawals/present';
import { describeTransferFailure } from '../../core/transfers/failures';
import { beneficiarySnapshot, sourceAccountSnapshot, withdrawalFee } from '../../core/withdrawals/rules';

const merchantId = '00000000-0000-0000-0000-0000000000aa';
const money = { withdrawalId: 'w1', merchantId, amountCents: 10_000, feeCents: 250 };

describe('withdrawal ledger entries', () => {
  it('reserves amount + fee from available into reserved', () => {
    const entry = withdrawalReservedEntry(money);
    expect(entry.movementKey).toBe('withdrawal-reserve:w1');
    expect(entry.postings).toEqual([
      { accountCode: accounts.merchantAvailable(merchantId), amountCents: -10_250 },
      { accountCode: accounts.merchantReserved(merchantId), amountCents: 10_250 },
    ]);
  });

  it('completes: the amount leaves through provider clearing, the fee goes to the platform', () => {
    const entry = withdrawalCompletedEntry(money);
    expect(entry.movementKey).toBe('withdrawal-complete:w1');
    expect(entry.postings).toEqual(
      expect.arrayContaining([
        { accountCode: accounts.merchantReserved(merchantId), amountCents: -10_250 },
        { accountCode: accounts.providerClearing, amountCents: 10_000 },
        { accountCode: accounts.platformFees, amountCents: 250 },
      ]),
    );
    expect(entry.postings).toHaveLength(3);
  });

  it('drops the fee line when there is no fee', () => {
    const entry = withdrawalCompletedEntry({ ...money, feeCents: 0 });
    expect(entry.postings.map((p) => p.accountCode)).not.toContain(accounts.platformFees);
  });

  it('releases the whole reserve back to available', () => {
    const entry = withdrawalReleasedEntry(money);
    expect(entry.movementKey).toBe('withdrawal-release:w1');
    expect(entry.postings).toEqual([
      { accountCode: accounts.merchantReserved(merchantId), amountCents: -10_250 },
      { accountCode: accounts.merchantAvailable(merchantId), amountCents: 10_250 },
    ]);
  });

  it('balances every entry, keys each movement uniquely, and leaves reserved at zero either way', () => {
    const entries = [withdrawalReservedEntry(money), withdrawalCompletedEntry(money), withdrawalReleasedEntry(money)];
    for (const e of entries) expect(() => assertBalanced(e.postings)).not.toThrow();
    expect(new Set(entries.map((e) => e.movementKey)).size).toBe(3);
    const reserved = accounts.merchantReserved(merchantId);
    const net = (list: typeof entries) =>
      list
        .flatMap((e) => e.postings)
        .filter((p) => p.accountCode === reserved)
        .reduce((s, p) => s + p.amountCents, 0);
    expect(net([entries[0], entries[1]])).toBe(0);
    expect(net([entries[0], entries[2]])).toBe(0);
  });

  it('refuses non-integer, zero or negative amounts and negative fees', () => {
    expect(() => withdrawalReservedEntry({ ...money, amountCents: 10.5 })).toThrow();
    expect(() => withdrawalReservedEntry({ ...money, amountCents: 0 })).toThrow();
    expect(() => withdrawalCompletedEntry({ ...money, feeCents: -1 })).toThrow();
  });
});

describe('normalizePixKey', () => {
  it.each([
    ['CPF', '529.982.247-25', '52998224725'],
    ['CNPJ', '11.222.333/0001-81', '11222333000181'],
    ['EMAIL', ' Financeiro@Loja.COM.br ', 'financeiro@loja.com.br'],
    ['PHONE', '+55 (11) 99999-8888', '+5511999998888'],
    ['PHONE', '+551133334444', '+551133334444'],
    ['EVP', '123E4567-E89B-12D3-A456-426614174000', '123e4567-e89b-12d3-a456-426614174000'],
  ])('accepts a %s key and stores it normalised', (type, raw, stored) => {
    expect(normalizePixKey(type, raw)).toEqual({ ok: true, type, key: stored });
  });

  it.each([
    ['CPF', '52998224724'], // wrong check digit
    ['CPF', '11111111111'],
    ['CPF', 'abc52998224725'],
    ['CNPJ', '11222333000182'],
    ['EMAIL', 'no-at-sign.com.br'],
    ['EMAIL', `${'a'.repeat(70)}@loja.com.br`], // over 77 characters
    ['PHONE', '11999998888'], // no +55
    ['PHONE', '+55119999'],
    ['PHONE', '+1 415 555 0100'],
    ['EVP', 'not-a-uuid'],
    ['IBAN', 'whatever'],
  ])('refuses %s %s', (type, raw) => {
    expect(normalizePixKey(type, raw).ok).toBe(false);
  });
});

describe('masks', () => {
  it('keeps the ends and stars the middle', () => {
    expect(maskMiddle('abcdefgh', 2, 2)).toBe('ab****gh');
    expect(maskMiddle('abc', 2, 2)).toBe('***');
    expect(maskDocument('52998224725')).toBe('529******25');
    expect(maskDocument('11222333000181')).toBe('112*********81');
  });

  it('masks each kind of Pix key without hiding what kind it is', () => {
    expect(maskPixKey('financeiro@loja.com.br', 'EMAIL')).toBe('fi********@loja.com.br');
    expect(maskPixKey('a@loja.com.br', 'EMAIL')).toBe('*@loja.com.br');
    expect(maskPixKey('+5511999998888', 'PHONE')).toBe('+5511*****8888');
    expect(maskPixKey('123e4567-e89b-12d3-a456-426614174000', 'EVP')).toBe('123e4567************************4000');
    expect(maskPixKey('52998224725', 'CPF')).toBe('529******25');
  });
});

describe('withdrawal fee and snapshots', () => {
  const merchant = {
    id: merchantId,
    name: 'Loja Saque',
    document: '52998224725',
    documentType: 'CPF' as const,
    pixKey: 'financeiro@loja.com.br',
    pixKeyType: 'EMAIL' as const,
    pixKeyHolderName: null,
    pixKeyHolderDocument: null,
    withdrawalFeeCents: 150,
  };

  it('charges the merchant fixed fee, refusing a broken setting', () => {
    expect(withdrawalFee(merchant)).toBe(150);
    expect(() => withdrawalFee({ withdrawalFeeCents: -1 })).toThrow();
  });

  it('snapshots the merchant as its own beneficiary, and nothing without a key', () => {
    expect(beneficiarySnapshot(merchant)).toMatchObject({
      name: 'Loja Saque',
      document: '52998224725',
      documentType: 'CPF',
      pixKey: 'financeiro@loja.com.br',
      pixKeyType: 'EMAIL',
    });
    expect(beneficiarySnapshot({ ...merchant, pixKey: null, pixKeyType: null })).toBeNull();
  });

  it('describes the source as the merchant payment account at the platform', () => {
    expect(sourceAccountSnapshot(merchant, 'Gateway Pagamentos IP')).toEqual({
      institution: 'Gateway Pagamentos IP',
      type: 'PAYMENT',
      holderName: 'Loja Saque',
      holderDocument: '52998224725',
      branch: '0001',
      account: merchantId,
    });
  });
});

describe('presentWithdrawal', () => {
  const source = (overrides: Partial<WithdrawalSource['withdrawal']> = {}): WithdrawalSource => ({
    withdrawal: {
      id: 'w-1',
      userId: null,
      amountCents: 10_000,
      feeCents: 250,
      totalDebitedCents: 10_250,
      status: 'COMPLETED',
      idempotencyKey: 'k1',
      partnerTxId: 'w-1',
      providerTransferId: 'sbx_tr_abcdef',
      providerEndToEndId: 'E99999999202611220000abcdefghijk',
      failureReason: null,
      beneficiarySnapshot: {
        name: 'Loja Saque',
        document: '52998224725',
        documentType: 'CPF',
        pixKey: 'financeiro@loja.com.br',
        pixKeyType: 'EMAIL',
        account: { institution: null, type: null, holderName: null, holderDocument: null, branch: null, account: null },
      },
      sourceAccountSnapshot: null,
      createdAt: new Date('2026-01-01T10:00:00Z'),
      processedAt: new Date('2026-01-01T10:00:05Z'),
      ...overrides,
    },
    merchant: { id: merchantId, name: 'Loja Saque', email: 'a@b.com', document: '52998224725', documentType: 'CPF' },
    platformInstitution: 'Gateway Pagamentos IP',
  });

  it('has exactly the spec fields, the generic provider and no supplier id', () => {
    const body = presentWithdrawal(source());
    expect(Object.keys(body).sort()).toEqual(
      [
        'id',
        'amountCents',
        'status',
        'createdAt',
        'processedAt',
        'userId',
        'feeCents',
        'totalDebitedCents',
        'provider',
        'providerTransferId',
        'providerEndToEndId',
        'partnerTxId',
        'failureReason',
        'idempotencyKey',
        'payer',
        'sourceAccount',
        'beneficiary',
        'tracking',
      ].sort(),
    );
    expect(body.provider).toBe('PIX_GATEWAY');
    expect(body.providerTransferId).toBe(publicTransferReference('sbx_tr_abcdef'));
    expect(body.providerTransferId).toMatch(/^ptr_[0-9a-f]{24}$/);
    expect(JSON.stringify(body)).not.toMatch(/sbx|sandbox/i);
    expect(body.tracking).toEqual({
      providerTransferId: body.providerTransferId,
      endToEndId: 'E99999999202611220000abcdefghijk',
    });
    expect(body.beneficiary).toMatchObject({
      documentMasked: '529******25',
      pixKeyMasked: 'fi********@loja.com.br',
      pixKeyType: 'EMAIL',
    });
    expect(body.sourceAccount).toMatchObject({
      institution: 'Gateway Pagamentos IP',
      type: 'PAYMENT',
      account: merchantId,
    });
    expect(body.payer).toEqual({
      merchantId,
      name: 'Loja Saque',
      email: 'a@b.com',
      document: '52998224725',
      documentType: 'CPF',
      institution: 'Gateway Pagamentos IP',
      account: merchantId,
    });
  });

  it('shows null beneficiary fields for a withdrawal without a snapshot', () => {
    const body = presentWithdrawal(
      source({ beneficiarySnapshot: null, providerTransferId: null, status: 'PROCESSING', processedAt: null }),
    );
    expect(Object.values(body.beneficiary as object).every((v) => v === null)).toBe(true);
    expect(body.tracking).toEqual({ providerTransferId: null, endToEndId: 'E99999999202611220000abcdefghijk' });
    expect(body.processedAt).toBeNull();
  });
});

describe('describeTransferFailure', () => {
  it('uses our words for known codes and never the provider text', () => {
    expect(describeTransferFailure('INVALID_PIX_KEY').reason).toMatch(/DICT/);
    expect(describeTransferFailure('SOMETHING_NEW')).toEqual({
      code: 'SOMETHING_NEW',
      reason: 'the Pix transfer was refused (SOMETHING_NEW)',
    });
    expect(describeTransferFailure('weird <b>code</b>').code).toBe('TRANSFER_REFUSED');
    expect(describeTransferFailure(null).code).toBe('TRANSFER_REFUSED');
  });
});
