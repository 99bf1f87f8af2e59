/**
 * A MED case as one merchant sees it (issue 38: the claim reaches split partners). The charge's
 * owner answers the case and sees every party's part; a split partner the claim reached (one of
 * `parties`) reads the case in its own list, with its own part only: the other merchants' holds and
 * debts are theirs, and the owner's users are not the partner's to know (decidedBy, the defence's
 * submittedBy show who decided only as the charge owner). Pure.
 */
import type { MedInfractionRow, MedInfractionView } from '../../db/med';

export type PartyRole = 'OWNER' | 'PARTNER';

/** Whose case it is for `merchantId`: the charge's owner, a partner the claim reached, or nobody's (null). */
export function partyRoleOf(
  row: Pick<MedInfractionRow, 'merchant_id' | 'parties'>,
  merchantId: string,
): PartyRole | null {
  if (row.merchant_id === merchantId) return 'OWNER';
  return row.parties?.some((p) => p.merchantId === merchantId) ? 'PARTNER' : null;
}

/** What a partner is shown in place of the owner's user who decided (a user id of another merchant). */
export const DECIDED_BY_OWNER = 'CHARGE_OWNER';

export interface ViewerPart {
  merchantId: string;
  role: PartyRole;
  /** Its share of the claim; null for a case held by the owner's account alone (MED 1, or a connection's). */
  shareCents: number | null;
  heldCents: number;
  owedCents: number;
}

export type InfractionAsViewer = MedInfractionView & { viewer: ViewerPart };

/**
 * The case as `merchantId` (with `role`) sees it: `viewer` is its part; a partner's `parties` hold
 * its own entry only, `blockedAmountCents` its own hold, and a user's decision shows as
 * CHARGE_OWNER. The owner's view is the case as stored, with its part beside it.
 */
export function asViewer(view: MedInfractionView, merchantId: string, role: PartyRole): InfractionAsViewer {
  const own = view.parties.find((p) => p.merchantId === merchantId);
  const viewer: ViewerPart = own
    ? { merchantId, role, shareCents: own.shareCents, heldCents: own.heldCents, owedCents: own.owedCents }
    : { merchantId, role, shareCents: null, heldCents: role === 'OWNER' ? view.blockedAmountCents : 0, owedCents: 0 };
  if (role === 'OWNER') return { ...view, viewer };
  return {
    ...view,
    blockedAmountCents: viewer.heldCents,
    decidedBy: view.decidedBy === null || view.decidedBy === 'DEFAULT' ? view.decidedBy : DECIDED_BY_OWNER,
    parties: own ? [own] : [],
    viewer,
  };
}
