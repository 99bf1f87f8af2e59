/**
 * The pure parts of the Efí boleto client (activities/provider/efi/efiBoletos.ts): where Efí's
 * API Cobranças is beside a connection's API Pix host, and the txid read from a hybrid boleto's
 * BR Code. The client over HTTP is exercised against the sandbox by connectedAccounts.test.ts.
 */
import { brCodeTxid, efiCobrancasBaseUrl } from '../../activities/provider/efi/efiBoletos';
import { buildPixBrCode } from '../../core/pix/brcode';

describe('efiCobrancasBaseUrl', () => {
  it("is Efí's Cobranças host beside its Pix host, production and homologation", () => {
    expect(efiCobrancasBaseUrl('https://pix.api.efipay.com.br/v2')).toBe('https://cobrancas.api.efipay.com.br');
    expect(efiCobrancasBaseUrl('https://pix-h.api.efipay.com.br/v2')).toBe('https://cobrancas-h.api.efipay.com.br');
  });

  it('is <origin>/cobrancas elsewhere (the sandbox serves both on one origin)', () => {
    expect(efiCobrancasBaseUrl('https://127.0.0.1:8443/api/v2')).toBe('https://127.0.0.1:8443/cobrancas');
  });
});

describe('brCodeTxid', () => {
  it("reads field 62's sub-field 05", () => {
    const brCode = buildPixBrCode({
      pixKey: 'loja@example.com',
      merchantName: 'Loja',
      merchantCity: 'SAO PAULO',
      amountCents: 12_345,
      txid: 'abcdefghijklmnopqrstuvwxy0123',
    });
    expect(brCodeTxid(brCode)).toBe('abcdefghijklmnopqrstuvwxy');
  });

  it('is null without one (or with the static "***")', () => {
    expect(brCodeTxid('')).toBeNull();
    expect(brCodeTxid('000201' + '62070503***' + '6304ABCD')).toBeNull();
  });
});
