/**
 * Whose a Pix infraction (MED) is, per PSP account (issue 37). Each account lists the infractions
 * against the Pix it received: the platform's account (PIX_API_*), and each connected merchant's
 * own. An infraction is the merchant's whose charge its endToEndId names, and only when that charge
 * was received at the account the infraction was read from (a charge's account is fixed at issue:
 * charges.psp_connection_id, null for the platform's). One read from an account naming a charge
 * received at another (a PSP that lists more than its account, a wrong endToEndId) is not that
 * account's to answer: attributing it would show a merchant a claim on someone else's money, and
 * answer it, and send its devolução, through an account that never received the payment.
 */

/** The charge an infraction's endToEndId names, as the sync finds it. */
export interface DisputedCharge {
  id: string;
  merchantId: string;
  /** The account the charge was issued and paid at: null, the platform's; else the merchant's connection. */
  pspConnectionId: string | null;
}

export type InfractionAttribution<C extends DisputedCharge = DisputedCharge> =
  /** Stored for the charge's merchant, answered through the account it was read from. */
  | { kind: 'ATTRIBUTED'; charge: C }
  /** No charge of ours has this endToEndId: counted, not stored. */
  | { kind: 'NO_CHARGE' }
  /** The charge was received at another account: logged, not stored, shown to no merchant. */
  | { kind: 'OTHER_ACCOUNT'; charge: C };

/** `readFrom`: the account the infraction was listed by (null: the platform's). */
export function attributeInfraction<C extends DisputedCharge>(
  readFrom: string | null,
  charge: C | null,
): InfractionAttribution<C> {
  if (!charge) return { kind: 'NO_CHARGE' };
  return charge.pspConnectionId === readFrom ? { kind: 'ATTRIBUTED', charge } : { kind: 'OTHER_ACCOUNT', charge };
}
