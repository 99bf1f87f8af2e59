/**
 * Efí's Split Pix at the sandbox over real HTTP: an account's split configuration (PUT/POST/GET
 * /v2/gn/split/config), linked to one of its cobs (PUT /v2/gn/split/cob/{txid}/vinculo/{id}), and
 * the PSP dividing the paid cob between the accounts at settlement: the merchant keeps its share,
 * a partner and the platform (the default account) are credited theirs, asserted on each
 * account's balance. Refusals: shares that do not add up, a favorecido that is not an account of
 * the PSP, another account's configuration or cob, a cob no longer ATIVA.
 */
import { DEFAULT_ACCOUNT_NUMBER } from '../../sandbox/accounts';
import { SANDBOX_MERCHANT } from '../../sandbox/payer';
import { startEfiSandbox, type EfiHarness } from './efiHarness';
import { basic, createCob, newTxid, requestToken } from './pixApiHarness';

interface TestAccount {
  id: string;
  key: string;
  cnpj: string;
  conta: string;
  token: string;
}

let h: EfiHarness;

beforeAll(async () => {
  h = await startEfiSandbox();
});
afterAll(async () => {
  await h.close();
});

async function newAccount(): Promise<TestAccount> {
  const made = await h.call('POST', '/sandbox/accounts', {});
  expect(made.status).toBe(201);
  const granted = await requestToken(h.url, { authorization: basic(made.json.clientId, made.json.clientSecret) });
  const { id, key, cnpj, conta } = made.json;
  return { id, key, cnpj, conta, token: granted.json.access_token };
}

async function balanceCents(id: string): Promise<number> {
  return (await h.call('GET', `/sandbox/accounts/${id}`)).json.balanceCents as number;
}

const platform = { cnpj: SANDBOX_MERCHANT.cnpj, conta: DEFAULT_ACCOUNT_NUMBER };

function configBody(
  minhaParte: string,
  repasses: { valor: string; favorecido: { cnpj: string; conta: string } }[],
  tipo = 'porcentagem',
) {
  return {
    descricao: 'Loja com parceiro',
    lancamento: { imediato: true },
    split: {
      divisaoTarifa: 'assumir_total',
      minhaParte: { tipo, valor: minhaParte },
      repasses: repasses.map((r) => ({ tipo, valor: r.valor, favorecido: r.favorecido })),
    },
  };
}

function cob(account: TestAccount, valor: string): Promise<string> {
  return createCob(h, account.token, account.key, valor);
}

describe('Split Pix', () => {
  it('divides a paid cob between the merchant, a partner and the platform at settlement', async () => {
    const merchant = await newAccount();
    const partner = await newAccount();
    const platformBefore = await balanceCents('default');
    const body = configBody('85.00', [
      { valor: '10.00', favorecido: { cnpj: partner.cnpj, conta: partner.conta } },
      { valor: '5.00', favorecido: platform },
    ]);
    const put = await h.efi('PUT', '/v2/gn/split/config/lojaParceiro1', body, merchant.token);
    expect(put.status).toBe(201);
    expect(put.json).toMatchObject({
      id: 'lojaParceiro1',
      status: 'ATIVA',
      revisao: 0,
      split: { minhaParte: { tipo: 'porcentagem', valor: '85.00' }, repasses: [expect.anything(), expect.anything()] },
    });
    const txid = await cob(merchant, '100.00');
    const link = await h.efi('PUT', `/v2/gn/split/cob/${txid}/vinculo/lojaParceiro1`, undefined, merchant.token);
    expect(link.status).toBe(204);
    const linked = await h.efi('GET', `/v2/gn/split/cob/${txid}`, undefined, merchant.token);
    expect(linked.json).toMatchObject({ txid, status: 'ATIVA', config: { id: 'lojaParceiro1', status: 'ATIVA' } });

    expect((await h.call('POST', `/sandbox/charges/${txid}/pay`, {})).status).toBe(200);
    expect(await balanceCents(merchant.id)).toBe(8_500);
    expect(await balanceCents(partner.id)).toBe(1_000);
    expect((await balanceCents('default')) - platformBefore).toBe(500);
    // The shares are the PSP's balances: Efí's GET /v2/gn/saldo of each account says the same.
    expect((await h.efi('GET', '/v2/gn/saldo', undefined, partner.token)).json.saldo).toBe('10.00');
  });

  it('rounds percentages down to the cent for the repasses, the merchant keeping the rest; fixed shares as given', async () => {
    const merchant = await newAccount();
    const partner = await newAccount();
    const half = configBody('50.00', [{ valor: '50.00', favorecido: { cnpj: partner.cnpj, conta: partner.conta } }]);
    const post = await h.efi('POST', '/v2/gn/split/config', half, merchant.token);
    expect(post.status).toBe(201);
    const odd = await cob(merchant, '10.01');
    expect(
      (await h.efi('PUT', `/v2/gn/split/cob/${odd}/vinculo/${post.json.id}`, undefined, merchant.token)).status,
    ).toBe(204);
    await h.call('POST', `/sandbox/charges/${odd}/pay`, {});
    expect([await balanceCents(merchant.id), await balanceCents(partner.id)]).toEqual([501, 500]);

    const fixed = configBody(
      '7.00',
      [{ valor: '3.00', favorecido: { cnpj: partner.cnpj, conta: partner.conta } }],
      'fixo',
    );
    expect((await h.efi('PUT', '/v2/gn/split/config/fixo1', fixed, merchant.token)).status).toBe(201);
    const wrongTotal = await cob(merchant, '12.00');
    const refused = await h.efi('PUT', `/v2/gn/split/cob/${wrongTotal}/vinculo/fixo1`, undefined, merchant.token);
    expect([refused.status, refused.json.nome]).toEqual([400, 'valor_invalido']);
    const ten = await cob(merchant, '10.00');
    expect((await h.efi('PUT', `/v2/gn/split/cob/${ten}/vinculo/fixo1`, undefined, merchant.token)).status).toBe(204);
    await h.call('POST', `/sandbox/charges/${ten}/pay`, {});
    expect([await balanceCents(merchant.id), await balanceCents(partner.id)]).toEqual([1_201, 800]);
  });

  it('refuses shares that do not add up, a favorecido not of this PSP, itself, and mixed types', async () => {
    const merchant = await newAccount();
    const partner = await newAccount();
    const favorecido = { cnpj: partner.cnpj, conta: partner.conta };
    const bodies = [
      configBody('80.00', [{ valor: '10.00', favorecido }]),
      configBody('90.00', [{ valor: '10.00', favorecido: { cnpj: '11444777000161', conta: partner.conta } }]),
      configBody('90.00', [{ valor: '10.00', favorecido: { cnpj: partner.cnpj, conta: '9999999' } }]),
      configBody('90.00', [{ valor: '10.00', favorecido: { cnpj: merchant.cnpj, conta: merchant.conta } }]),
      { ...configBody('90.00', [{ valor: '10.00', favorecido }]), lancamento: { imediato: false } },
      {
        ...configBody('90.00', []),
        split: {
          divisaoTarifa: 'assumir_total',
          minhaParte: { tipo: 'porcentagem', valor: '90.00' },
          repasses: [{ tipo: 'fixo', valor: '10.00', favorecido }],
        },
      },
    ];
    for (const body of bodies) {
      const put = await h.efi('PUT', `/v2/gn/split/config/${newTxid()}`, body, merchant.token);
      expect([put.status, put.json.nome]).toEqual([400, 'valor_invalido']);
    }
  });

  it('keeps each account to its own configurations and cobs, and a link to ATIVA cobs', async () => {
    const merchant = await newAccount();
    const other = await newAccount();
    const body = configBody('90.00', [{ valor: '10.00', favorecido: { cnpj: other.cnpj, conta: other.conta } }]);
    expect((await h.efi('PUT', '/v2/gn/split/config/somenteMinha', body, merchant.token)).status).toBe(201);
    const read = await h.efi('GET', '/v2/gn/split/config/somenteMinha', undefined, other.token);
    expect([read.status, read.json.nome]).toEqual([404, 'split_nao_encontrado']);
    const taken = await h.efi('PUT', '/v2/gn/split/config/somenteMinha', body, other.token);
    expect(taken.status).toBe(400);

    const txid = await cob(merchant, '20.00');
    const foreignCob = await h.efi('PUT', `/v2/gn/split/cob/${txid}/vinculo/somenteMinha`, undefined, other.token);
    expect(foreignCob.status).toBe(404);
    const otherTxid = await cob(other, '20.00');
    const foreignConfig = await h.efi(
      'PUT',
      `/v2/gn/split/cob/${otherTxid}/vinculo/somenteMinha`,
      undefined,
      other.token,
    );
    expect([foreignConfig.status, foreignConfig.json.nome]).toEqual([404, 'split_nao_encontrado']);

    // Linked then unlinked: the whole amount stays with the merchant.
    expect(
      (await h.efi('PUT', `/v2/gn/split/cob/${txid}/vinculo/somenteMinha`, undefined, merchant.token)).status,
    ).toBe(204);
    expect((await h.efi('DELETE', `/v2/gn/split/cob/${txid}/vinculo`, undefined, merchant.token)).status).toBe(204);
    await h.call('POST', `/sandbox/charges/${txid}/pay`, {});
    expect([await balanceCents(merchant.id), await balanceCents(other.id)]).toEqual([2_000, 0]);
    const paid = await h.efi('PUT', `/v2/gn/split/cob/${txid}/vinculo/somenteMinha`, undefined, merchant.token);
    expect([paid.status, paid.json.nome]).toEqual([400, 'valor_invalido']);

    // A new revision leaves the linked one as it was; GET ?revisao reads either.
    const revised = configBody('80.00', [{ valor: '20.00', favorecido: { cnpj: other.cnpj, conta: other.conta } }]);
    expect((await h.efi('PUT', '/v2/gn/split/config/somenteMinha', revised, merchant.token)).json.revisao).toBe(1);
    const first = await h.efi('GET', '/v2/gn/split/config/somenteMinha?revisao=0', undefined, merchant.token);
    expect(first.json.split.minhaParte.valor).toBe('90.00');
  });
});
