/** The one rule of a cycle charge's receiver account (core/pixAutomatico/receiver.ts), for both account models. */
import { receiverAccountOf } from '../../core/pixAutomatico/receiver';

const configured = { account: '1000001', branch: '0001', accountType: 'CHECKING' as const };

it("the platform's account: the configured receiver, or a refusal naming the setting", () => {
  expect(receiverAccountOf({ kind: 'platform', configured })).toEqual({ ok: true, receiver: configured });
  const none = receiverAccountOf({ kind: 'platform', configured: null });
  expect(none).toMatchObject({ ok: false, reason: expect.stringContaining('PIX_AUTOMATICO_RECEIVER_ACCOUNT') });
});

it("a connected account: its connection's account number, a payment account with no branch; none without it", () => {
  expect(receiverAccountOf({ kind: 'connected', connectionId: 'c-1', accountNumber: '2000017' })).toEqual({
    ok: true,
    receiver: { account: '2000017', branch: null, accountType: 'PAYMENT' },
  });
  // Never the platform's configured account instead.
  const missing = receiverAccountOf({ kind: 'connected', connectionId: 'c-1', accountNumber: null });
  expect(missing).toMatchObject({ ok: false, reason: expect.stringContaining('--account-number') });
  expect(missing).toMatchObject({ reason: expect.stringContaining('c-1') });
});
