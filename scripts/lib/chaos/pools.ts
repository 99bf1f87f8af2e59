/**
 * Paid Pix charges waiting to be refunded or disputed (MED). A charge is in one pool only and is
 * taken out while an operation works on it, so two operations never race on one charge.
 */
import type { PaidCharge } from './common';

export class PaidPools {
  private readonly refundable: PaidCharge[] = [];
  private readonly disputable: PaidCharge[] = [];

  /** Every other paid charge goes to each pool, so both always get some. */
  private turn = 0;

  add(charge: PaidCharge): void {
    (this.turn++ % 2 === 0 ? this.refundable : this.disputable).push(charge);
  }

  putBackRefundable(charge: PaidCharge): void {
    if (charge.remainingCents > 0) this.refundable.push(charge);
  }

  takeRefundable(): PaidCharge | undefined {
    return this.refundable.shift();
  }

  takeDisputable(): PaidCharge | undefined {
    return this.disputable.shift();
  }
}
