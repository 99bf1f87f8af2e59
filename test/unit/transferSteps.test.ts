/**
 * The one reading of the provider's answer (activities/transfers/transferSteps.ts), for every
 * domain: only a completed transfer settles; a refusal on a transfer object releases in our own
 * words; no record releases (after the grace period), as cancelled when an operator cancelled.
 */
import { decide } from '../../activities/transfers/transferSteps';
import type { ProviderTransfer } from '../../core/provider';

const transfer = (over: Partial<ProviderTransfer>): ProviderTransfer => ({
  id: 'sbx_tr_1',
  reference: 'ref-1',
  status: 'COMPLETED',
  amountCents: 1_000,
  pixKey: 'r@example.com',
  pixKeyType: 'EMAIL',
  recipientName: 'R',
  endToEndId: 'E1',
  failureCode: null,
  failureReason: 'the provider says something about its own systems',
  createdAt: new Date(0).toISOString(),
  ...over,
});

it('settles a completed transfer', () => {
  expect(decide({ kind: 'COMPLETED', transfer: transfer({}) })).toEqual({
    kind: 'SETTLE',
    providerTransferId: 'sbx_tr_1',
    endToEndId: 'E1',
  });
});

it("releases a refusal carried on a transfer, in our words, never the provider's", () => {
  expect(
    decide({
      kind: 'REFUSED',
      transfer: transfer({ status: 'FAILED', failureCode: 'INVALID_PIX_KEY', endToEndId: null }),
    }),
  ).toEqual({
    kind: 'RELEASE',
    providerTransferId: 'sbx_tr_1',
    failure: { code: 'INVALID_PIX_KEY', reason: 'the Pix key was not found in the Pix directory (DICT)' },
    cancelled: false,
  });
});

it('releases when the provider has no record: not accepted, or cancelled by an operator', () => {
  expect(decide(null)).toEqual({
    kind: 'RELEASE',
    providerTransferId: null,
    failure: { code: 'TRANSFER_NOT_ACCEPTED', reason: 'the payment institution did not accept the transfer' },
    cancelled: false,
  });
  expect(decide({ kind: 'NO_RECORD', code: 'PROVIDER_REJECTED' })).toMatchObject({
    failure: { code: 'TRANSFER_NOT_ACCEPTED' },
  });
  expect(decide(null, { cancelled: true })).toEqual({
    kind: 'RELEASE',
    providerTransferId: null,
    failure: { code: 'CANCELLED', reason: 'cancelled before the transfer was sent' },
    cancelled: true,
  });
});
