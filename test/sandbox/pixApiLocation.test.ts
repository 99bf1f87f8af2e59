/**
 * The dynamic QR code of a cob, checked with tools we did not write: the BR Code parsed by
 * pix-utils (field 26-25 is the location, no key in 26-01, 62-05 "***", CRC16 valid), and the
 * payload location's JWS verified by jose against the key set its jku names, whose certificate's
 * SHA-1 thumbprint is the header's x5t; the payload is the document's CobPayload.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compactVerify, createRemoteJWKSet, decodeProtectedHeader, importX509 } from 'jose';
import { parsePix, hasError, PixElementType } from 'pix-utils';
import { hasValidCrc } from '../../core/pix/brcode';
import { runTool } from '../support/externalTools';
import { pixApiSchemaValidator, type SchemaValidator } from '../support/pixApiSpec';
import { cobBody, newTxid, RECEIVING_KEY, startPixApiSandbox, type PixApiHarness } from './pixApiHarness';

let h: PixApiHarness;
let conforms: SchemaValidator;
beforeAll(async () => {
  [h, conforms] = await Promise.all([startPixApiSandbox(), pixApiSchemaValidator(['CobPayload', 'Problema'])]);
});
afterAll(async () => {
  await h.close();
});

/** Top-level EMV fields (id → value), to look at what pix-utils does not report for a dynamic code. */
function emvFields(code: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (let i = 0; i < code.length;) {
    const id = code.slice(i, i + 2);
    const length = Number(code.slice(i + 2, i + 4));
    fields.set(id, code.slice(i + 4, i + 4 + length));
    i += 4 + length;
  }
  return fields;
}

describe('the cob BR Code (pixCopiaECola)', () => {
  it('is a dynamic Pix whose field 26-25 is the location, parsed by pix-utils', async () => {
    const cob = (await h.pix('PUT', `/cob/${newTxid()}`, cobBody())).json;
    const parsed = parsePix(cob.pixCopiaECola);
    if (hasError(parsed)) throw new Error(`pix-utils refused the code: ${parsed.message}`);
    expect(parsed.type).toBe(PixElementType.DYNAMIC);
    if (parsed.type !== PixElementType.DYNAMIC) return;
    expect(parsed.url).toBe(cob.location);
    expect(parsed).toMatchObject({
      merchantCategoryCode: '0000',
      transactionCurrency: '986',
      countryCode: 'BR',
      merchantName: 'PIX GATEWAY SANDBOX',
      merchantCity: 'SAO PAULO',
    });
    expect(hasValidCrc(cob.pixCopiaECola)).toBe(true);

    const fields = emvFields(cob.pixCopiaECola);
    const account = emvFields(fields.get('26') ?? '');
    expect(account.get('00')).toBe('br.gov.bcb.pix');
    expect(account.get('25')).toBe(cob.location);
    expect(account.has('01')).toBe(false);
    expect(emvFields(fields.get('62') ?? '').get('05')).toBe('***');
    expect(fields.get('01')).toBe('12');
    expect(fields.has('54')).toBe(false);
  });

  it('is what the QR image of the charge (/v1 view) holds, read back by zbarimg', async () => {
    const txid = newTxid();
    const cob = (await h.pix('PUT', `/cob/${txid}`, cobBody())).json;
    const charge = [...h.sandbox.state.charges.values()].find((r) => r.charge.txid === txid)?.charge;
    const file = path.join(os.tmpdir(), `cob-qr-${process.pid}-${txid}.png`);
    fs.writeFileSync(file, Buffer.from(charge?.qrCodeBase64 ?? '', 'base64'));
    try {
      expect((await runTool('zbarimg', ['--quiet', '--raw', file])).trim()).toBe(cob.pixCopiaECola);
    } finally {
      fs.rmSync(file, { force: true });
    }
  });
});

describe('GET https://{location} (http in the sandbox)', () => {
  it('answers application/jose: a PS256 JWS verified with the published key set, x5t the certificate’s thumbprint, the payload a CobPayload', async () => {
    const txid = newTxid();
    const cob = (await h.pix('PUT', `/cob/${txid}`, cobBody({ infoAdicionais: [{ nome: 'Pedido', valor: '42' }] })))
      .json;
    const res = await fetch(`http://${cob.location}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/jose');
    const jws = await res.text();
    expect(jws.split('.')).toHaveLength(3);

    const header = decodeProtectedHeader(jws);
    expect(header).toMatchObject({
      alg: 'PS256',
      kid: expect.any(String),
      x5t: expect.any(String),
      jku: `${h.url}/.well-known/jwks.json`,
    });
    const { payload, protectedHeader } = await compactVerify(jws, createRemoteJWKSet(new URL(header.jku as string)), {
      algorithms: ['PS256'],
    });
    expect(protectedHeader.kid).toBe(header.kid);

    // x5t: base64url SHA-1 of the DER of the certificate the key set publishes (x5c), and that certificate verifies too.
    const jwks = (await (await fetch(header.jku as string)).json()) as any;
    const key = jwks.keys.find((k: { kid: string }) => k.kid === header.kid);
    expect(key).toMatchObject({ kty: 'RSA', use: 'sig', alg: 'PS256', x5t: header.x5t });
    const der = Buffer.from(key.x5c[0], 'base64');
    expect(crypto.createHash('sha1').update(der).digest('base64url')).toBe(header.x5t);
    const pem = `-----BEGIN CERTIFICATE-----\n${key.x5c[0].match(/.{1,64}/g).join('\n')}\n-----END CERTIFICATE-----`;
    await compactVerify(jws, await importX509(pem, 'PS256'));
    expect(jwks.keys.every((k: Record<string, unknown>) => !('d' in k))).toBe(true);

    const cobPayload = JSON.parse(Buffer.from(payload).toString('utf8'));
    expect(conforms('CobPayload', cobPayload)).toEqual([]);
    expect(cobPayload).toMatchObject({
      txid,
      revisao: 0,
      status: 'ATIVA',
      calendario: { criacao: cob.calendario.criacao, expiracao: 3600, apresentacao: expect.any(String) },
      valor: { original: '25.00' },
      chave: RECEIVING_KEY,
      devedor: { cpf: '52998224725', nome: 'Joana Pagadora' },
      infoAdicionais: [{ nome: 'Pedido', valor: '42' }],
    });
  });

  it('serves the current revision and status, and 404s an unknown location', async () => {
    const txid = newTxid();
    const cob = (await h.pix('PUT', `/cob/${txid}`, cobBody())).json;
    await h.pix('PATCH', `/cob/${txid}`, { valor: { original: '12.34' } });
    const revised = JSON.parse(
      Buffer.from(
        (
          await compactVerify(
            await (await fetch(`http://${cob.location}`)).text(),
            createRemoteJWKSet(new URL(`${h.url}/.well-known/jwks.json`)),
          )
        ).payload,
      ).toString('utf8'),
    );
    expect(revised).toMatchObject({ revisao: 1, valor: { original: '12.34' } });

    const unknown = await fetch(`${h.url}/qr/v2/${'0'.repeat(32)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toContain('application/problem+json');
    const problem = (await unknown.json()) as any;
    expect(problem.type).toBe('https://pix.bcb.gov.br/api/v2/error/CobPayloadNaoEncontrado');
    expect(conforms('Problema', problem)).toEqual([]);
  });
});
