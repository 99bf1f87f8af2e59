/** The sandbox provider keeps its charges and transfers across restarts, like a real PSP. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { hasError, isStaticPix, parsePix } from 'pix-utils';
import { chargeRequest, startSandbox, transferRequest } from './harness';

const files: string[] = [];
const tempFile = () => {
  const file = path.join(os.tmpdir(), `sandbox-state-${crypto.randomUUID()}`, 'state.jsonl');
  files.push(path.dirname(file));
  return file;
};
afterAll(() => {
  for (const dir of files) fs.rmSync(dir, { recursive: true, force: true });
});

describe('sandbox state on disk', () => {
  it('finds, pays and closes a charge issued before a restart; transfers and idempotency survive too', async () => {
    const dataFile = tempFile();
    const first = await startSandbox({ dataFile });
    const charge = await first.provider.issueCharge(chargeRequest({ amountCents: 3_000 }));
    const other = await first.provider.issueCharge(chargeRequest());
    const transferReq = transferRequest();
    const transfer = await first.provider.transfer(transferReq);
    await first.close();

    const second = await startSandbox({ dataFile });
    try {
      expect(await second.provider.getCharge(charge.id)).toMatchObject({
        id: charge.id,
        status: 'ACTIVE',
        amountCents: 3_000,
      });
      expect((await second.provider.findChargeByReference(charge.reference))?.id).toBe(charge.id);
      const paid = await second.call('POST', `/sandbox/charges/${charge.id}/pay`, {});
      expect(paid.status).toBe(200);
      expect(paid.json.status).toBe('PAID');
      expect((await second.provider.closeCharge(other.id, 'EXPIRED')).status).toBe('EXPIRED');
      // The same idempotency key replays the transfer instead of paying twice.
      expect((await second.provider.transfer(transferReq)).id).toBe(transfer.id);
      expect((await second.call('GET', '/sandbox/transfers')).json.references[transferReq.reference]).toMatchObject({
        created: 1,
      });
    } finally {
      await second.close();
    }

    const third = await startSandbox({ dataFile });
    try {
      expect((await third.provider.getCharge(charge.id)).status).toBe('PAID');
      expect((await third.provider.getCharge(other.id)).status).toBe('EXPIRED');
    } finally {
      await third.close();
    }
  });

  it('ignores a torn last line (a crash in the middle of a write)', async () => {
    const dataFile = tempFile();
    const first = await startSandbox({ dataFile });
    const charge = await first.provider.issueCharge(chargeRequest());
    await first.close();
    fs.appendFileSync(dataFile, '{"kind":"charge","value":{"char');
    const second = await startSandbox({ dataFile });
    try {
      expect((await second.provider.getCharge(charge.id)).id).toBe(charge.id);
    } finally {
      await second.close();
    }
  });
});

describe("the BR Code names the merchant, the key stays the provider's", () => {
  it('puts the normalised merchant name in field 59', async () => {
    const h = await startSandbox();
    try {
      const charge = await h.provider.issueCharge({ ...chargeRequest(), merchantName: 'Padaria Pão de Açúcar' });
      const parsed = parsePix(charge.copyPaste);
      if (hasError(parsed) || !isStaticPix(parsed)) throw new Error('BR Code did not parse');
      expect(parsed.merchantName).toBe('PADARIA PAO DE ACUCAR');
      const unnamed = parsePix((await h.provider.issueCharge(chargeRequest())).copyPaste);
      if (hasError(unnamed) || !isStaticPix(unnamed)) throw new Error('BR Code did not parse');
      expect(unnamed.merchantName).toBe('PIX GATEWAY SANDBOX');
      expect(unnamed.pixKey).toBe(parsed.pixKey);
    } finally {
      await h.close();
    }
  });
});
