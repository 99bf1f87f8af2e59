/**
 * The claim side of a payItems call: the slice's items claimed a wave at a time, in row order,
 * one wave ahead of the lanes that send them, so a lane that is free finds an item claimed.
 */
import { claimItems, type ClaimedItem } from './claimItems';
import type { PayoutDeps } from './deps';
import type { Slice } from './payItems';

/** Items of a slice claimed in one transaction; `fromRow` is the row a later call resumes from. */
export interface Wave {
  ids: string[];
  fromRow: number;
}

export class ClaimWindow {
  /** Claimed (marked SENDING) and not yet taken by a lane. */
  private readonly claimed: ClaimedItem[] = [];
  private nextWave = 0;
  private claiming: Promise<void> | null = null;
  private done = false;
  private readonly budgetEnds: number;
  /** A claim found the merchant may not pay out now: nothing more is claimed. */
  parked = false;
  /** Set when the time budget stopped the claims: the first row not claimed. */
  resumeFromRow: number | null = null;

  constructor(
    private readonly deps: Pick<PayoutDeps, 'sequelize'>,
    private readonly slice: Pick<Slice, 'stopError'>,
    private readonly plan: { batchId: string; waves: Wave[]; size: number; budgetMs: number },
  ) {
    this.budgetEnds = Date.now() + plan.budgetMs;
  }

  /** The next claimed item to send, or null when this call sends nothing more (all taken, or stopped). */
  async next(): Promise<ClaimedItem | null> {
    for (;;) {
      if (this.slice.stopError !== null) return null;
      const item = this.claimed.shift();
      this.topUp();
      if (item !== undefined) return item;
      if (this.claiming === null) return null;
      await this.claiming;
    }
  }

  /**
   * Claims the next wave once fewer than a wave's items are claimed and waiting, one claim at a
   * time. The first wave is always claimed; past the time budget no other is (the chunk looks at
   * a cancel from Temporal between calls), nor after a claim found the batch parked or cancelled.
   */
  private topUp(): void {
    if (this.claiming !== null || this.done || this.claimed.length >= this.plan.size) return;
    const wave = this.plan.waves[this.nextWave];
    if (wave === undefined) {
      this.done = true;
      return;
    }
    if (this.nextWave > 0 && Date.now() >= this.budgetEnds) {
      this.resumeFromRow = wave.fromRow;
      this.done = true;
      return;
    }
    this.nextWave++;
    this.claiming = claimItems(this.deps, { itemIds: wave.ids, batchId: this.plan.batchId })
      .then(
        (claim) => {
          this.parked ||= claim.parked;
          if (claim.parked || claim.cancelled) this.done = true;
          // Items already SENDING are claimed even when parked or cancelled: always followed through.
          this.claimed.push(...claim.claimed);
        },
        (err: unknown) => {
          this.slice.stopError ??= err;
          this.done = true;
        },
      )
      .finally(() => {
        this.claiming = null;
      });
  }
}
