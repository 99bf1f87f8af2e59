/**
 * The API Pix client's unit-test bench: the test PKI, a fake PSP over mutual TLS with every API
 * request checked against the BCB document, and clients pointed at it (closed with the bench).
 * The client secret, the passphrase and every token the fake issues are recorded for the
 * suite's secrets audit (scripts/lib/secretsAudit.ts), which fails the run if any reaches a log.
 */
import crypto from 'node:crypto';
import { readClientTls, type ClientTls } from '../../core/net/clientTls';
import { PixApiClient, type PixApiClientOptions } from '../../activities/provider/pixApi/pixApiClient';
import { FakePixPsp, type FakePixPspOptions } from './fakePixPsp';
import { PixApiRequestValidator } from './pixApiRequestValidator';
import { testCertificates, type PkiFiles } from './testCertificates';
import { recordIssuedSecrets } from './testLogs';

export interface PixApiTestbed {
  certs: PkiFiles;
  psp: FakePixPsp;
  clientId: string;
  clientSecret: string;
  /** Every way an API request the fake received broke the BCB document. */
  violations: string[];
  /** How many API requests the validator has seen (so "no violations" is not "nothing checked"). */
  checked(): number;
  pemTls(): ClientTls;
  client(overrides?: Partial<PixApiClientOptions>): PixApiClient;
  close(): Promise<void>;
}

export async function pixApiTestbed(
  opts: { tls?: boolean } & Partial<Omit<FakePixPspOptions, 'certificates'>> = {},
): Promise<PixApiTestbed> {
  const certs = await testCertificates();
  // Reserved characters on purpose: RFC 6749 §2.3.1 form-encodes both before Basic.
  const clientId = opts.clientId ?? 'gateway:client id';
  const clientSecret = opts.clientSecret ?? `s3cret+/=&é-${crypto.randomBytes(12).toString('hex')}`;
  recordIssuedSecrets('API Pix client secret', [clientSecret, certs.pfxPassphrase]);
  const psp = await new FakePixPsp({
    ...opts,
    certificates: opts.tls === false ? null : certs,
    clientId,
    clientSecret,
  }).start();
  const validator = await PixApiRequestValidator.create({ apiRoot: '/api/v2' });
  const violations: string[] = [];
  let checked = 0;
  psp.onApiRequest = (req) => {
    checked += 1;
    violations.push(...validator.violationsOf(req));
  };
  const clients: PixApiClient[] = [];

  const pemTls = (): ClientTls => {
    const { tls, problems } = readClientTls({
      certFile: { name: 'cert', value: certs.clientCertFile },
      keyFile: { name: 'key', value: certs.clientKeyFile },
      pfxFile: { name: 'pfx', value: undefined },
      pfxPassphrase: { name: 'passphrase', value: undefined },
      caFile: { name: 'ca', value: certs.caFile },
    });
    if (!tls) throw new Error(`test certificates unusable: ${problems.join('; ')}`);
    return tls;
  };

  return {
    certs,
    psp,
    clientId,
    clientSecret,
    violations,
    checked: () => checked,
    pemTls,
    client(overrides = {}) {
      const client = new PixApiClient({
        baseUrl: psp.baseUrl,
        tokenUrl: psp.tokenUrl,
        clientId,
        clientSecret,
        tls: opts.tls === false ? null : pemTls(),
        timeoutMs: 15_000,
        allowPlainHttp: opts.tls === false,
        ...overrides,
      });
      clients.push(client);
      return client;
    },
    async close() {
      recordIssuedSecrets('API Pix access token', psp.tokensIssued);
      await Promise.all(clients.map((c) => c.close()));
      await psp.stop();
    },
  };
}
