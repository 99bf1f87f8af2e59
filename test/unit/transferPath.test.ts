/**
 * The one transfer path against a fake provider: what releases money and what never does.
 */
import { createTransferPath } from '../../activities/transfers/transferPath';
import { FakePixProvider } from '../support/fakePixProvider';
import { testLogger } from '../support/testLogs';

const logger = testLogger('transfers-test');

const request = (reference: string, pixKey = 'r@example.com') => ({
  reference,
  amountCents: 1_000,
  pixKey,
  pixKeyType: 'EMAIL' as const,
  recipientName: 'R',
});

it('never settles a transfer whose amount differs from what was sent', async () => {
  const provider = new FakePixProvider();
  provider.transferScript = ['wrong-amount'];
  await expect(
    createTransferPath(async () => provider, logger).send(request('ref-1'), { retry: false }),
  ).rejects.toMatchObject({
    type: 'TransferMismatch',
    nonRetryable: true,
  });
});

it('releases only on a refusal carried on a transfer', async () => {
  const provider = new FakePixProvider();
  const path = createTransferPath(async () => provider, logger);
  expect(await path.send(request('ref-2', 'invalid@example.com'), { retry: false })).toMatchObject({
    kind: 'REFUSED',
    transfer: { failureCode: 'INVALID_PIX_KEY' },
  });
  provider.transferScript = ['unauthorized'];
  expect(await path.send(request('ref-3'), { retry: false })).toEqual({ kind: 'NO_RECORD', code: 'UNAUTHORIZED' });
});

it('answers a 401 after a lost answer from the provider record, not as a failure', async () => {
  const provider = new FakePixProvider();
  provider.transferScript = ['lose', 'unauthorized'];
  const path = createTransferPath(async () => provider, logger);
  await expect(path.send(request('ref-4'), { retry: false })).rejects.toMatchObject({
    type: 'ProviderUnavailable',
    nonRetryable: false,
  });
  expect(await path.send(request('ref-4'), { retry: false })).toMatchObject({ kind: 'COMPLETED' });
  expect(provider.transfers.size).toBe(1);
});

it('keeps the provider text out of its failures', async () => {
  const provider = new FakePixProvider();
  provider.transferScript = ['lose'];
  await expect(
    createTransferPath(async () => provider, logger).send(request('ref-5'), { retry: false }),
  ).rejects.toThrow('the payment institution did not answer (PROVIDER_TIMEOUT)');
});
