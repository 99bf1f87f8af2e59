import { parseConnectionArgs } from '../../cli/connectionArgs';

const merchant = '0b8a2f7e-4c1d-4e55-9a3b-2f6d8c1e9a70';
const register = [
  '--merchant',
  merchant,
  '--psp',
  'efi',
  '--api-base-url',
  'https://psp.example/v2/',
  '--token-url',
  'https://psp.example/oauth/token',
  '--client-id',
  'Client_Id',
  '--client-secret-file',
  '/s/secret',
  '--pix-key',
  'loja@example.com',
];

describe('connection arguments', () => {
  it('reads a registration with a PEM pair', () => {
    const cmd = parseConnectionArgs('register', [...register, '--cert-file', '/s/c.pem', '--key-file', '/s/k.pem']);
    expect(cmd).toEqual({
      action: 'register',
      merchantId: merchant,
      json: false,
      pspKind: 'efi',
      apiBaseUrl: 'https://psp.example/v2',
      tokenUrl: 'https://psp.example/oauth/token',
      clientId: 'Client_Id',
      pixKey: 'loja@example.com',
      accountNumber: null,
      files: {
        clientSecretFile: '/s/secret',
        certificate: { kind: 'pem', certFile: '/s/c.pem', keyFile: '/s/k.pem' },
        caFile: null,
      },
    });
  });

  it('reads a rotation with a PKCS#12 and no passphrase', () => {
    const cmd = parseConnectionArgs('rotate', [
      '--merchant',
      merchant,
      '--client-secret-file',
      '/s',
      '--pfx-file',
      '/p',
    ]);
    expect(cmd).toMatchObject({
      action: 'rotate',
      files: { certificate: { kind: 'pfx', pfxFile: '/p', passphraseFile: null } },
    });
  });

  it('reads a webhook registration: --merchant and --json only', () => {
    expect(parseConnectionArgs('webhook', ['--merchant', merchant, '--json'])).toEqual({
      action: 'webhook',
      merchantId: merchant,
      json: true,
    });
    expect(() => parseConnectionArgs('webhook', ['--merchant', merchant, '--pix-key', 'k'])).toThrow(
      /connection webhook takes only --merchant and --json/,
    );
  });

  it.each([
    [['--merchant', merchant, '--client-secret', 'x'], /Unknown option '--client-secret'/],
    [['--merchant', 'nope'], /--merchant must be a merchant id/],
    [[], /--merchant <merchantId> is required/],
  ])('refuses %j with a sentence', (argv, message) => {
    expect(() => parseConnectionArgs('show', argv)).toThrow(message);
  });

  it('refuses both certificate forms, half a pair, and no certificate', () => {
    expect(() =>
      parseConnectionArgs('register', [...register, '--cert-file', '/c', '--key-file', '/k', '--pfx-file', '/p']),
    ).toThrow(/one way, --cert-file with --key-file or --pfx-file, not both/);
    expect(() => parseConnectionArgs('register', [...register, '--cert-file', '/c'])).toThrow(/go together/);
    expect(() => parseConnectionArgs('register', register)).toThrow(/the certificate is required/);
  });

  it('refuses a plain-http URL, another PSP, missing flags and registration flags on a rotation', () => {
    const pem = ['--cert-file', '/c', '--key-file', '/k'];
    const swap = (flag: string, value: string) => register.map((v, i) => (register[i - 1] === flag ? value : v));
    expect(() => parseConnectionArgs('register', [...swap('--token-url', 'http://psp/t'), ...pem])).toThrow(
      /--token-url must be an https URL/,
    );
    expect(() => parseConnectionArgs('register', [...swap('--psp', 'stripe'), ...pem])).toThrow(/--psp must be efi/);
    expect(() => parseConnectionArgs('register', ['--merchant', merchant, ...pem])).toThrow(
      /--psp, --api-base-url, --token-url, --client-id, --pix-key required/,
    );
    expect(() =>
      parseConnectionArgs('rotate', ['--merchant', merchant, '--client-id', 'x', '--client-secret-file', '/s', ...pem]),
    ).toThrow(/changes the secrets only: --client-id not accepted/);
    expect(() => parseConnectionArgs('test', ['--merchant', merchant, '--pfx-file', '/p'])).toThrow(
      /takes only --merchant and --json/,
    );
    expect(() => parseConnectionArgs('delete', [])).toThrow(/one of register, show, test, rotate, revoke, webhook/);
  });
});
