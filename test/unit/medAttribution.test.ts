/**
 * MED per connection (issue 37): an infraction is attributed to the merchant whose charge it names
 * only when the account that listed it is the account that received that charge.
 */
import { attributeInfraction, type DisputedCharge } from '../../core/med/attribution';

const CONNECTION = '6f1c1a52-0c57-4a7e-9a55-5f7f3c0d1a01';
const OTHER_CONNECTION = '6f1c1a52-0c57-4a7e-9a55-5f7f3c0d1a02';

const charge = (pspConnectionId: string | null): DisputedCharge & { amountCents: number } => ({
  id: 'c0a80101-0000-4000-8000-000000000001',
  merchantId: 'c0a80101-0000-4000-8000-0000000000aa',
  pspConnectionId,
  amountCents: 1_000,
});

describe('attributeInfraction', () => {
  it("attributes an infraction read from a connection's account to the merchant whose charge that account received", () => {
    const c = charge(CONNECTION);
    expect(attributeInfraction(CONNECTION, c)).toEqual({ kind: 'ATTRIBUTED', charge: c });
  });

  it("attributes one read from the platform's account to a charge received there", () => {
    const c = charge(null);
    expect(attributeInfraction(null, c)).toEqual({ kind: 'ATTRIBUTED', charge: c });
  });

  it("does not attribute one read from a connection's account naming another connection's charge", () => {
    const c = charge(OTHER_CONNECTION);
    expect(attributeInfraction(CONNECTION, c)).toEqual({ kind: 'OTHER_ACCOUNT', charge: c });
  });

  it("does not attribute one read from a connection's account naming a charge of the platform's account", () => {
    expect(attributeInfraction(CONNECTION, charge(null)).kind).toBe('OTHER_ACCOUNT');
  });

  it("does not attribute one read from the platform's account naming a connected merchant's charge", () => {
    expect(attributeInfraction(null, charge(CONNECTION)).kind).toBe('OTHER_ACCOUNT');
  });

  it('counts one naming no charge of ours as unmatched', () => {
    expect(attributeInfraction(CONNECTION, null)).toEqual({ kind: 'NO_CHARGE' });
    expect(attributeInfraction(null, null)).toEqual({ kind: 'NO_CHARGE' });
  });
});
