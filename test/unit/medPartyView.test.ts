/**
 * A MED case as one merchant sees it (issue 38): the charge's owner sees every party's part; a
 * split partner the claim reached sees its own part only, and not the owner's users.
 */
import type { MedInfractionView } from '../../db/med';
import { asViewer, DECIDED_BY_OWNER, partyRoleOf } from '../../api/med/partyView';

const OWNER = 'c0a80101-0000-4000-8000-0000000000aa';
const PARTNER = 'c0a80101-0000-4000-8000-0000000000bb';
const STRANGER = 'c0a80101-0000-4000-8000-0000000000cc';
const USER = 'c0a80101-0000-4000-8000-0000000000dd';

const parties = [
  { merchantId: OWNER, shareCents: 6_900, heldCents: 1_900, owedCents: 5_000 },
  { merchantId: PARTNER, shareCents: 3_000, heldCents: 1_000, owedCents: 2_000 },
];

const view = (over: Partial<MedInfractionView> = {}): MedInfractionView =>
  ({
    id: 'c0a80101-0000-4000-8000-000000000001',
    merchantId: OWNER,
    blockedAmountCents: 1_900,
    status: 'REJECTED',
    decision: 'REJECT',
    decidedBy: USER,
    parties,
    ...over,
  }) as MedInfractionView;

describe('partyRoleOf', () => {
  const row = { merchant_id: OWNER, parties };
  it('is OWNER for the charge’s merchant, PARTNER for another party, null for anyone else', () => {
    expect(partyRoleOf(row, OWNER)).toBe('OWNER');
    expect(partyRoleOf(row, PARTNER)).toBe('PARTNER');
    expect(partyRoleOf(row, STRANGER)).toBeNull();
  });
  it('knows only the owner of a case held by the owner alone (parties null: MED 1 or a connection’s)', () => {
    expect(partyRoleOf({ merchant_id: OWNER, parties: null }, OWNER)).toBe('OWNER');
    expect(partyRoleOf({ merchant_id: OWNER, parties: null }, PARTNER)).toBeNull();
  });
});

describe('asViewer', () => {
  it('shows the owner the case as stored, every party, with its own part beside it', () => {
    const seen = asViewer(view(), OWNER, 'OWNER');
    expect(seen.parties).toEqual(parties);
    expect(seen.decidedBy).toBe(USER);
    expect(seen.blockedAmountCents).toBe(1_900);
    expect(seen.viewer).toEqual({
      merchantId: OWNER,
      role: 'OWNER',
      shareCents: 6_900,
      heldCents: 1_900,
      owedCents: 5_000,
    });
  });

  it('shows a partner its own part only, its hold as blockedAmountCents, and no user of the owner', () => {
    const seen = asViewer(view(), PARTNER, 'PARTNER');
    expect(seen.parties).toEqual([parties[1]]);
    expect(seen.blockedAmountCents).toBe(1_000);
    expect(seen.decidedBy).toBe(DECIDED_BY_OWNER);
    expect(seen.viewer).toEqual({
      merchantId: PARTNER,
      role: 'PARTNER',
      shareCents: 3_000,
      heldCents: 1_000,
      owedCents: 2_000,
    });
    expect(JSON.stringify(seen)).not.toContain(USER);
  });

  it('keeps DEFAULT and an undecided case as they are for a partner', () => {
    expect(asViewer(view({ decidedBy: 'DEFAULT' }), PARTNER, 'PARTNER').decidedBy).toBe('DEFAULT');
    expect(asViewer(view({ decidedBy: null, decision: null }), PARTNER, 'PARTNER').decidedBy).toBeNull();
  });

  it('gives the owner of a case with no parties its hold and no share', () => {
    const seen = asViewer(view({ parties: [], blockedAmountCents: 500 }), OWNER, 'OWNER');
    expect(seen.viewer).toEqual({ merchantId: OWNER, role: 'OWNER', shareCents: null, heldCents: 500, owedCents: 0 });
  });
});
