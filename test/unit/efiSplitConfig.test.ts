/**
 * The rule that turns a connected merchant's charge into Efí's split configuration
 * (core/connections/efiSplitConfig.ts): the PSP must pay what the ledger's chargePaidEntry
 * records, to the cent, and refuse before any call what Split Pix cannot pay.
 */
import {
  efiSplitConfigFor,
  splitConfigIdFor,
  splitSendsFor,
  SplitConfigError,
  SplitConfigErrorCodes,
  type ChargeToSplit,
  type PspAccountIdentity,
  type SplitAccounts,
} from '../../core/connections/efiSplitConfig';
import { chargePaidEntry } from '../../core/ledger/postings';
import { accounts as ledgerAccounts } from '../../core/ledger/accounts';
import { movements, splitSendSettle } from '../../core/ledger/postings';
import { splitSendIdFor } from '../../core/splitSends/splitSendId';

const CHARGE_ID = '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const PLATFORM: PspAccountIdentity = { cnpj: '11222333000181', conta: '1000001' };
const PARTNER: PspAccountIdentity = { cnpj: '11444777000161', conta: '1000002' };
const PERSON: PspAccountIdentity = { cpf: '52998224725', conta: '1000003' };

function charge(over: Partial<ChargeToSplit> = {}): ChargeToSplit {
  return {
    chargeId: CHARGE_ID,
    merchantId: 'merchant',
    amountCents: 10_000,
    feeCents: 500,
    splits: [{ merchantId: 'partner', amountCents: 1_000 }],
    ...over,
  };
}

function at(known: Record<string, PspAccountIdentity>): SplitAccounts {
  return { platform: PLATFORM, recipientAccount: (id) => known[id] ?? null };
}

function refusal(fn: () => unknown): SplitConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof SplitConfigError) return err;
    throw err;
  }
  throw new Error('expected a SplitConfigError');
}

const cents = (valor: string) => Math.round(Number(valor) * 100);

describe('efiSplitConfigFor', () => {
  it('keeps the rest for the merchant and passes the platform fee and each partner share on, fixed, the PSP bearing no share of its fee', () => {
    expect(efiSplitConfigFor(charge(), at({ partner: PARTNER }))).toEqual({
      descricao: `Cobrança ${CHARGE_ID}`,
      lancamento: { imediato: true },
      split: {
        divisaoTarifa: 'assumir_total',
        minhaParte: { tipo: 'fixo', valor: '85.00' },
        repasses: [
          { tipo: 'fixo', valor: '5.00', favorecido: { cnpj: '11222333000181', conta: '1000001' } },
          { tipo: 'fixo', valor: '10.00', favorecido: { cnpj: '11444777000161', conta: '1000002' } },
        ],
      },
    });
  });

  it("divides exactly as the ledger's chargePaidEntry records the paid charge", () => {
    const c = charge({
      amountCents: 12_345,
      feeCents: 371,
      splits: [
        { merchantId: 'partner', amountCents: 1_234 },
        { merchantId: 'person', amountCents: 99 },
      ],
    });
    const body = efiSplitConfigFor(c, at({ partner: PARTNER, person: PERSON }))!;
    const ledger = new Map(
      chargePaidEntry({ ...c, splits: [...c.splits] }).postings.map((p) => [p.accountCode, p.amountCents]),
    );
    const psp = new Map(body.split.repasses.map((r) => [r.favorecido.conta, cents(r.valor)]));
    expect(cents(body.split.minhaParte.valor)).toBe(ledger.get(ledgerAccounts.merchantAvailable('merchant')));
    expect(psp.get(PLATFORM.conta)).toBe(ledger.get(ledgerAccounts.platformFees));
    expect(psp.get(PARTNER.conta)).toBe(ledger.get(ledgerAccounts.merchantAvailable('partner')));
    expect(psp.get(PERSON.conta)).toBe(ledger.get(ledgerAccounts.merchantAvailable('person')));
    expect(body.split.repasses[2].favorecido).toEqual({ cpf: '52998224725', conta: '1000003' });
    const total = cents(body.split.minhaParte.valor) + [...psp.values()].reduce((s, x) => s + x, 0);
    expect(total).toBe(12_345);
  });

  it('drops zero shares, and needs no account for them', () => {
    const body = efiSplitConfigFor(
      charge({
        feeCents: 0,
        splits: [
          { merchantId: 'partner', amountCents: 1_000 },
          { merchantId: 'nowhere', amountCents: 0 },
        ],
      }),
      at({ partner: PARTNER }),
    )!;
    expect(body.split.repasses).toEqual([{ tipo: 'fixo', valor: '10.00', favorecido: PARTNER }]);
    expect(body.split.minhaParte.valor).toBe('90.00');
  });

  it('writes no configuration when nothing leaves the merchant (no fee, no share)', () => {
    expect(efiSplitConfigFor(charge({ feeCents: 0, splits: [] }), at({}))).toBeNull();
    expect(
      efiSplitConfigFor(charge({ feeCents: 0, splits: [{ merchantId: 'merchant', amountCents: 300 }] }), at({})),
    ).toBeNull();
  });

  it('keeps a split to the merchant itself in minhaParte, and pays two shares to one account as one repasse', () => {
    const body = efiSplitConfigFor(
      charge({
        splits: [
          { merchantId: 'merchant', amountCents: 700 },
          { merchantId: 'partner', amountCents: 1_000 },
          { merchantId: 'partnerAgain', amountCents: 250 },
        ],
      }),
      at({ partner: PARTNER, partnerAgain: { ...PARTNER } }),
    )!;
    expect(body.split.minhaParte.valor).toBe('82.50');
    expect(body.split.repasses.map((r) => [r.favorecido.conta, r.valor])).toEqual([
      ['1000001', '5.00'],
      ['1000002', '12.50'],
    ]);
  });

  it('sends only conta and the document, whatever else the identity carries', () => {
    const rich = { ...PARTNER, name: 'Parceira Ltda' } as PspAccountIdentity;
    const body = efiSplitConfigFor(charge(), at({ partner: rich }))!;
    expect(body.split.repasses[1].favorecido).toEqual({ cnpj: '11444777000161', conta: '1000002' });
  });

  it('refuses a recipient without an account at the PSP, naming it', () => {
    const err = refusal(() => efiSplitConfigFor(charge(), at({})));
    expect([err.code, err.merchantId]).toEqual([SplitConfigErrorCodes.recipientNotAtPsp, 'partner']);
    expect(err.code).toBe('SPLIT_RECIPIENT_NOT_AT_PSP');
  });

  it('refuses an identity Efí cannot take: no document, two documents, a malformed conta or document', () => {
    const bad = [
      { conta: '1000002' },
      { conta: '1000002', cpf: '52998224725', cnpj: '11444777000161' },
      { conta: '10-02', cnpj: '11444777000161' },
      { conta: '1000002', cnpj: '11.444.777/0001-61' },
      { conta: '1000002', cpf: '5299822472' },
    ] as unknown as PspAccountIdentity[];
    for (const identity of bad) {
      const err = refusal(() => efiSplitConfigFor(charge(), at({ partner: identity })));
      expect([err.code, err.merchantId]).toEqual([SplitConfigErrorCodes.accountInvalid, 'partner']);
    }
    const platform = refusal(() =>
      efiSplitConfigFor(charge(), { platform: { conta: '' } as PspAccountIdentity, recipientAccount: () => PARTNER }),
    );
    expect([platform.code, platform.merchantId]).toEqual([SplitConfigErrorCodes.accountInvalid, null]);
  });

  it('refuses one account named with two documents', () => {
    const err = refusal(() =>
      efiSplitConfigFor(charge(), at({ partner: { cnpj: '11444777000161', conta: PLATFORM.conta } })),
    );
    expect(err.code).toBe(SplitConfigErrorCodes.accountConflict);
  });

  it('refuses shares that do not add up: fee and shares above the amount, negative or fractional cents', () => {
    expect(
      refusal(() =>
        efiSplitConfigFor(
          charge({ feeCents: 9_001, splits: [{ merchantId: 'partner', amountCents: 1_000 }] }),
          at({ partner: PARTNER }),
        ),
      ).code,
    ).toBe(SplitConfigErrorCodes.sharesDoNotAddUp);
    for (const c of [
      charge({ feeCents: -1 }),
      charge({ amountCents: 100.5 }),
      charge({ splits: [{ merchantId: 'partner', amountCents: NaN }] }),
    ])
      expect(refusal(() => efiSplitConfigFor(c, at({ partner: PARTNER }))).code).toBe(
        SplitConfigErrorCodes.sharesDoNotAddUp,
      );
  });

  it('refuses more accounts than one configuration takes', () => {
    const splits = Array.from({ length: 20 }, (_, i) => ({ merchantId: `m${i}`, amountCents: 10 }));
    const known = Object.fromEntries(
      splits.map((s, i) => [s.merchantId, { cnpj: '11444777000161', conta: String(2_000_000 + i) }]),
    );
    expect(efiSplitConfigFor(charge({ splits: splits.slice(0, 19) }), at(known))!.split.repasses).toHaveLength(20);
    expect(refusal(() => efiSplitConfigFor(charge({ splits }), at(known))).code).toBe(
      SplitConfigErrorCodes.tooManyRecipients,
    );
  });
});

describe('splitConfigIdFor', () => {
  it("is the charge's stable id in Efí's format (1 to 35 letters and digits)", () => {
    expect(splitConfigIdFor(CHARGE_ID)).toBe('6f1c2d3e4a5b4c6d8e7f9a0b1c2d3e4f');
    expect(splitConfigIdFor(CHARGE_ID)).toMatch(/^[a-zA-Z0-9]{1,35}$/);
    expect(() => splitConfigIdFor('not-a-uuid')).toThrow(RangeError);
  });
});

describe('a recipient at another PSP: its share stays in the merchant account and is sent after settlement', () => {
  const elsewhere = (ids: string[], known: Record<string, PspAccountIdentity> = {}): SplitAccounts => ({
    ...at(known),
    sentAfterSettlement: (id) => ids.includes(id),
  });

  it('is no repasse: its share stays in minhaParte, the fee and same-PSP partners are passed on as before', () => {
    const c = charge({
      splits: [
        { merchantId: 'partner', amountCents: 1_000 },
        { merchantId: 'faraway', amountCents: 2_000 },
      ],
    });
    const body = efiSplitConfigFor(c, elsewhere(['faraway'], { partner: PARTNER }))!;
    // 100.00 - 5.00 fee - 10.00 partner = 85.00 kept, of which 20.00 is faraway's, sent later.
    expect(body.split.minhaParte).toEqual({ tipo: 'fixo', valor: '85.00' });
    expect(body.split.repasses.map((r) => r.favorecido.conta)).toEqual([PLATFORM.conta, PARTNER.conta]);
    expect(splitSendsFor(c, elsewhere(['faraway']))).toEqual([{ merchantId: 'faraway', amountCents: 2_000 }]);
  });

  it('with no fee and only sends, the PSP passes nothing on: no configuration, the sends alone', () => {
    const c = charge({ feeCents: 0, splits: [{ merchantId: 'faraway', amountCents: 2_000 }] });
    expect(efiSplitConfigFor(c, elsewhere(['faraway']))).toBeNull();
    expect(splitSendsFor(c, elsewhere(['faraway']))).toEqual([{ merchantId: 'faraway', amountCents: 2_000 }]);
  });

  it('sums one recipient given twice into one send, and drops zero shares and the owner itself', () => {
    const c = charge({
      splits: [
        { merchantId: 'faraway', amountCents: 700 },
        { merchantId: 'faraway', amountCents: 300 },
        { merchantId: 'zero', amountCents: 0 },
        { merchantId: 'merchant', amountCents: 100 },
      ],
    });
    expect(splitSendsFor(c, elsewhere(['faraway', 'zero', 'merchant']))).toEqual([
      { merchantId: 'faraway', amountCents: 1_000 },
    ]);
  });

  it('a recipient with no account anywhere is still refused (SPLIT_RECIPIENT_NOT_AT_PSP)', () => {
    const c = charge({ splits: [{ merchantId: 'nowhere', amountCents: 1_000 }] });
    const err = refusal(() => efiSplitConfigFor(c, elsewhere(['faraway'])));
    expect(err.code).toBe(SplitConfigErrorCodes.recipientNotAtPsp);
    expect(err.merchantId).toBe('nowhere');
  });

  it("the ledger mirrors it: the share is the owner's reserved at settlement, the recipient's available once sent", () => {
    const c = charge({ splits: [{ merchantId: 'faraway', amountCents: 2_000 }] });
    const byCode = (postings: { accountCode: string; amountCents: number }[]) =>
      Object.fromEntries(postings.map((p) => [p.accountCode, p.amountCents]));
    const paid = chargePaidEntry({ ...c, splits: [...c.splits], sentFromOwner: ['faraway'] });
    expect(byCode(paid.postings)).toEqual({
      [ledgerAccounts.pixPayins]: -10_000,
      [ledgerAccounts.merchantAvailable('merchant')]: 7_500,
      [ledgerAccounts.merchantReserved('merchant')]: 2_000,
      [ledgerAccounts.platformFees]: 500,
    });
    // What the PSP left in the merchant's account (minhaParte) is its available plus reserved.
    const body = efiSplitConfigFor(c, elsewhere(['faraway']))!;
    expect(cents(body.split.minhaParte.valor)).toBe(7_500 + 2_000);

    const id = splitSendIdFor(CHARGE_ID, 'faraway');
    const sent = splitSendSettle(movements.splitSend(id).settle, {
      ownerMerchantId: 'merchant',
      recipientMerchantId: 'faraway',
      cents: 2_000,
    });
    expect(sent.movementKey).toBe(`split-send-complete:${id}`);
    expect(byCode(sent.postings)).toEqual({
      [ledgerAccounts.merchantReserved('merchant')]: -2_000,
      [ledgerAccounts.providerClearing]: 2_000,
      [ledgerAccounts.pixPayins]: -2_000,
      [ledgerAccounts.merchantAvailable('faraway')]: 2_000,
    });
  });
});

describe('splitSendIdFor', () => {
  it('is one UUID per charge and recipient, the same every time (the send is keyed by it)', () => {
    const id = splitSendIdFor(CHARGE_ID, 'faraway');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(splitSendIdFor(CHARGE_ID, 'faraway')).toBe(id);
    expect(splitSendIdFor(CHARGE_ID, 'other')).not.toBe(id);
  });
});
