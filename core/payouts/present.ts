/** The spec's payout batch and item objects, built from stored rows (pure). */

export interface ItemCounts {
  PENDING: number;
  SENDING: number;
  PAID: number;
  FAILED: number;
  CANCELLED: number;
}

export interface BatchSource {
  id: string;
  status: string;
  description: string | null;
  metadata: Record<string, unknown> | null;
  itemsCount: number;
  totalAmountCents: number;
  totalFeeCents: number;
  releasedAmountCents: number;
  cancelReason: string | null;
  completedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface ItemSource {
  id: string;
  status: string;
  rowIndex: number;
  amountCents: number;
  feeCents: number;
  recipientName: string;
  pixKeyType: string;
  referenceId: string | null;
  endToEndId: string | null;
  lastError: string | null;
  lastErrorCode: string | null;
  settledAt: Date | null;
  releasedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function presentBatchListEntry(b: BatchSource, counts: ItemCounts) {
  return {
    id: b.id,
    status: b.status,
    totalAmountCents: b.totalAmountCents,
    totalFeeCents: b.totalFeeCents,
    totalItems: b.itemsCount,
    paidItems: counts.PAID,
    failedItems: counts.FAILED,
    createdAt: b.createdAt.toISOString(),
    updatedAt: b.updatedAt.toISOString(),
  };
}

export function presentBatch(b: BatchSource, counts: ItemCounts, items: ItemSource[]) {
  return {
    ...presentBatchListEntry(b, counts),
    // The fee is charged on top: recipients receive the full amounts.
    totalNetCents: b.totalAmountCents,
    totalFundingCents: b.totalAmountCents + b.totalFeeCents,
    cancelledItems: counts.CANCELLED,
    pendingItems: counts.PENDING + counts.SENDING,
    releasedAmountCents: b.releasedAmountCents,
    cancelReason: b.cancelReason,
    description: b.description,
    metadata: b.metadata,
    completedAt: iso(b.completedAt),
    items: items.map(presentItem),
  };
}

export function presentItem(i: ItemSource) {
  return {
    id: i.id,
    status: i.status,
    amountCents: i.amountCents,
    feeCents: i.feeCents,
    netAmountCents: i.amountCents,
    recipientName: i.recipientName,
    pixKeyType: i.pixKeyType,
    referenceId: i.referenceId,
    endToEndId: i.endToEndId,
    lastError: i.lastError,
    lastErrorCode: i.lastErrorCode,
    settledAt: iso(i.settledAt),
    releasedAt: iso(i.releasedAt),
    rowIndex: i.rowIndex,
    createdAt: i.createdAt.toISOString(),
    updatedAt: i.updatedAt.toISOString(),
  };
}
