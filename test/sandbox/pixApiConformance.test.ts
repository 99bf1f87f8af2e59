/**
 * Conformance of the sandbox's API Pix with a tool we did not write: schemathesis runs the BCB's
 * own document (release 2.9.0, with the errata of test/support/pixApiSpec.ts) against the
 * operations the sandbox implements, positive and negative cases, with an OAuth token, and
 * passes only with 0 server errors and 0 answers the document does not describe (status codes,
 * content types, headers, bodies). A second run does the same for the payload location, served
 * at its own base (/qr/v2), as the document gives it its own server; its JWS payload is read by a
 * schemathesis hook (test/support/schemathesis_jose.py) and checked as the document's CobPayload.
 *
 * Not checked: positive_data_acceptance. The document's patterns are not anchored, so to the
 * letter a txid of "!" plus 26 letters, or a valor of "x1.00", is valid; the sandbox reads them
 * as the descriptions mean them (whole values) and refuses the rest with a 400 the document lists.
 *
 * Budget: SCHEMATHESIS_MAX_EXAMPLES per operation (default 10), one worker, a fixed seed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writePixApiDocument } from '../support/pixApiSpec';
import { expectSchemathesisPassed, runSchemathesis } from '../support/schemathesis';
import { testLogDir } from '../support/testLogs';
import { cobBody, newTxid, RECEIVING_KEY, startPixApiSandbox, type PixApiHarness } from './pixApiHarness';

jest.setTimeout(180_000);

const CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_headers_conformance',
  'response_schema_conformance',
];
/** Keys the document's examples name, so its example requests reach the success paths too. */
const EXAMPLE_KEYS = [
  '7d9f0335-8dcc-4054-9bf9-0dbd61d36906',
  '40a0932d-1918-4eee-845d-35a2da1690dc',
  '7407c9c8-f78b-11ea-adc1-0242ac120002',
];
/** The operations the sandbox implements (the document's paths, relative to /api/v2). */
const IMPLEMENTED =
  '^/(cob|cob/\\{txid\\}|pix|pix/\\{e2eid\\}|pix/\\{e2eid\\}/devolucao/\\{id\\}|webhook|webhook/\\{chave\\})$';

/** Pix Automático's operations (sandbox/pixApi/recRoutes.ts); not the recurrence's payload location. */
const IMPLEMENTED_REC =
  '^/(rec|rec/\\{idRec\\}|locrec|locrec/\\{id\\}|solicrec|solicrec/\\{idSolicRec\\}|cobr|cobr/\\{txid\\}|cobr/\\{txid\\}/retentativa/\\{data\\}|webhookrec|webhookcobr)$';

let h: PixApiHarness;
let dir: string;
/** Real resources, so cases reach past "not found". */
let known: { txid: string; e2eid: string; devolucaoId: string; locationToken: string };
/** Real Pix Automático resources: an approved rec with a location and a cobr, and a solicrec of another rec. */
let knownRec: { idRec: string; locId: string; cobrTxid: string; idSolicRec: string };

beforeAll(async () => {
  h = await startPixApiSandbox({ pixReceivingKeys: [RECEIVING_KEY, ...EXAMPLE_KEYS] });
  // In the run's log directory under `npm test` (kept with the run), else a temporary one.
  dir = fs.mkdtempSync(path.join(testLogDir() ?? os.tmpdir(), 'pix-api-conformance-'));
  const paid = newTxid();
  await h.pix('PUT', `/cob/${paid}`, cobBody({ valor: { original: '5000.00' } }));
  const e2eid = (await h.call('POST', `/sandbox/charges/${paid}/pay`, {})).json.endToEndId as string;
  await h.pix('PUT', `/pix/${e2eid}/devolucao/conformance1`, { valor: '1.00' });
  const open = (await h.pix('PUT', `/cob/${newTxid()}`, cobBody())).json;
  await h.pix('PUT', `/webhook/${RECEIVING_KEY}`, { webhookUrl: 'http://127.0.0.1:9/unused' });
  known = { txid: paid, e2eid, devolucaoId: 'conformance1', locationToken: open.location.split('/').pop() };
  const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
  const recBody = (loc?: number) => ({
    vinculo: { contrato: 'c1', devedor: { cpf: '52998224725', nome: 'Joana Pagadora' } },
    calendario: { dataInicial: day(1), periodicidade: 'MENSAL' },
    valor: { valorRec: '10.00' },
    politicaRetentativa: 'PERMITE_3R_7D',
    ...(loc === undefined ? {} : { loc }),
  });
  const loc = (await h.pix('POST', '/locrec')).json.id as number;
  const idRec = (await h.pix('POST', '/rec', recBody(loc))).json.idRec as string;
  await h.call('POST', `/sandbox/pix-automatico/recs/${idRec}/approve`, { jornada: 'JORNADA_2' });
  const cobrTxid = newTxid();
  await h.pix('PUT', `/cobr/${cobrTxid}`, {
    idRec,
    calendario: { dataDeVencimento: day(2) },
    valor: { original: '10.00' },
    ajusteDiaUtil: true,
    recebedor: { conta: '1000001', tipoConta: 'CORRENTE' },
  });
  const asked = (await h.pix('POST', '/rec', recBody())).json.idRec as string;
  const idSolicRec = (
    await h.pix('POST', '/solicrec', {
      idRec: asked,
      calendario: { dataExpiracaoSolicitacao: new Date(Date.now() + 86_400_000).toISOString() },
      destinatario: { conta: '1', ispbParticipante: '12345678', cpf: '52998224725' },
    })
  ).json.idSolicRec as string;
  knownRec = { idRec, locId: String(loc), cobrTxid, idSolicRec };
});

afterAll(async () => {
  await h?.close();
});

/**
 * schemathesis.toml: the token, and path parameters fixed to real resources. Each block names its
 * operations by label ("GET /cob/{txid}"): the include-* keys of one block are alternatives (OR),
 * and every block that matches an operation applies, so path plus method filters would spill over.
 */
function configFile(): string {
  const block = (labels: string, parameters: Record<string, string>) => [
    '[[operations]]',
    `include-name-regex = '^(${labels})$'`,
    `parameters = { ${Object.entries(parameters)
      .map(([k, v]) => `"path.${k}" = "${v}"`)
      .join(', ')} }`,
    '',
  ];
  const lines = [
    `headers = { Authorization = "Bearer ${h.token}" }`,
    // The payload location answers application/jose: this reads the JWS payload for the schema check.
    `hooks = '${path.resolve(__dirname, '..', 'support', 'schemathesis_jose.py')}'`,
    '',
    ...block('GET /cob/\\{txid\\}', { txid: known.txid }),
    ...block('GET /pix/\\{e2eid\\}/devolucao/\\{id\\}', { e2eid: known.e2eid, id: known.devolucaoId }),
    // New devoluções of the known Pix, until what is left runs out (then 400s).
    ...block('GET /pix/\\{e2eid\\}|PUT /pix/\\{e2eid\\}/devolucao/\\{id\\}', { e2eid: known.e2eid }),
    ...block('GET /webhook/\\{chave\\}', { chave: RECEIVING_KEY }),
    ...block('GET /\\{pixUrlAccessToken\\}', { pixUrlAccessToken: known.locationToken }),
    ...block('GET /rec/\\{idRec\\}', { idRec: knownRec.idRec }),
    ...block('GET /locrec/\\{id\\}', { id: knownRec.locId }),
    ...block('GET /cobr/\\{txid\\}', { txid: knownRec.cobrTxid }),
    ...block('GET /solicrec/\\{idSolicRec\\}', { idSolicRec: knownRec.idSolicRec }),
  ];
  const file = path.join(dir, 'schemathesis.toml');
  fs.writeFileSync(file, lines.join('\n'));
  return file;
}

async function run(name: string, baseUrl: string, include: string[]): Promise<void> {
  const logFile = path.join(dir, `${name}.log`);
  const result = await runSchemathesis(
    [
      '--config-file',
      configFile(),
      'run',
      await writePixApiDocument(dir),
      '--url',
      baseUrl,
      ...include,
      '--checks',
      CHECKS.join(','),
      '--mode',
      'all',
      '--max-examples',
      process.env.SCHEMATHESIS_MAX_EXAMPLES ?? '10',
      '--seed',
      '20261123',
      '--workers',
      '1',
      '--generation-database',
      'none',
      // One request's answer: generous for a loaded host (a timeout fails the run).
      '--request-timeout',
      '60',
      '--suppress-health-check',
      'too_slow,filter_too_much',
      '--no-color',
      ...(process.env.SCHEMATHESIS_ARGS?.split(' ').filter(Boolean) ?? []),
    ],
    logFile,
  );
  expectSchemathesisPassed(result, logFile);
}

it('API Pix (/api/v2): no server error and no answer outside the BCB document', async () => {
  await run('api-pix', `${h.url}/api/v2`, ['--include-path-regex', IMPLEMENTED]);
});

it('Pix Automático (/api/v2/rec, locrec, solicrec, cobr, webhookrec, webhookcobr): no server error and no answer outside the BCB document', async () => {
  await run('api-pix-automatico', `${h.url}/api/v2`, ['--include-path-regex', IMPLEMENTED_REC]);
});

it('the payload location (/qr/v2/{pixUrlAccessToken}): no server error and no answer outside the BCB document', async () => {
  await run('payload-location', `${h.url}/qr/v2`, ['--include-path-regex', '^/\\{pixUrlAccessToken\\}$']);
});
