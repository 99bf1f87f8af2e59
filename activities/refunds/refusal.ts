import { ApplicationFailure } from '@temporalio/activity';
import { RefundFailureTypes } from '../../workflows/refunds/types';

/** A refund refused for good: the API answers it by its type (RefundFailureTypes). */
export function refusal(message: string, type: string, details?: Record<string, unknown>): ApplicationFailure {
  return ApplicationFailure.create({ message, type, nonRetryable: true, details: details ? [details] : [] });
}

export function merchantRefusal(held: 'MERCHANT_INACTIVE' | 'WITHDRAWAL_FROZEN'): ApplicationFailure {
  return held === 'MERCHANT_INACTIVE'
    ? refusal('the merchant is not active', RefundFailureTypes.merchantInactive)
    : refusal('withdrawals, payouts and refunds are frozen for this merchant', RefundFailureTypes.merchantFrozen);
}
