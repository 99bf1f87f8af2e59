/**
 * The BCB's API Pix document (release 2.9.0, docs/standards/api-pix-2.9.0.yaml) for tests: as
 * published, plus the errata below, each a place where the document contradicts itself (its
 * description sections or its own examples) so that no implementation could conform to the
 * letter. Nothing else is changed; each erratum says which part of the document it follows.
 * Used by the schemathesis run (test/sandbox/pixApiConformance.test.ts) and by
 * pixApiSchemaValidator(), which checks a body against one of the document's schemas with
 * openapi-backend (a validator we did not write).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from '@readme/openapi-parser';
import OpenAPIBackend from 'openapi-backend';

/** Where the document is: PIX_API_DOCUMENT, else the copy kept in the repository (docs/standards/). */
export function pixApiDocumentPath(): string {
  return process.env.PIX_API_DOCUMENT || path.resolve(__dirname, '..', '..', 'docs', 'standards', 'api-pix-2.9.0.yaml');
}

type Json = any;

export interface Erratum {
  what: string;
  apply(doc: Json): void;
}

/** Every object in the document, depth first, with the key it sits under. */
function walk(node: Json, visit: (value: Json, key: string) => void, key = ''): void {
  if (Array.isArray(node)) node.forEach((item) => walk(item, visit, key));
  else if (node && typeof node === 'object') {
    visit(node, key);
    for (const [k, v] of Object.entries(node)) walk(v, visit, k);
  }
}

const PROBLEM_400 = {
  description: 'Requisição com formato inválido.',
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problema' } } },
};

export const PIX_API_ERRATA: Erratum[] = [
  {
    what: 'CPF patterns are written as JavaScript regex literals ("/^\\d{11}$/"), which as JSON Schema patterns match no string at all; read as the regex they quote (11 digits).',
    apply: (doc) =>
      walk(doc, (node) => {
        if (typeof node.pattern === 'string' && /^\/\^.*\$\/$/.test(node.pattern))
          node.pattern = node.pattern.slice(1, -1);
      }),
  },
  {
    what: 'PixConsultados requires "cobs" but lists Pix under "pix" (its own example getPix1 has parametros and pix): requires "pix".',
    apply: (doc) => {
      doc.components.schemas.PixConsultados.required = ['parametros', 'pix'];
    },
  },
  {
    what: 'CobsConsultadas requires an "idCob" in each cob, a property no schema defines and no example has: not required.',
    apply: (doc) =>
      walk(doc.components.schemas.CobsConsultadas, (node) => {
        if (Array.isArray(node.required)) node.required = node.required.filter((r: string) => r !== 'idCob');
      }),
  },
  {
    what: 'location is "format: uri" but, as the examples show ("pix.example.com/qr/v2/…"), it has no scheme, which an absolute URI must have: no format.',
    apply: (doc) =>
      walk(doc.components.schemas, (node, key) => {
        if (key === 'location' && node.format === 'uri') delete node.format;
      }),
  },
  {
    what: 'The description section defines 400 CobConsultaInvalida (GET /cob, GET /cob/{txid}), PixConsultaInvalida (GET /pix) and WebhookConsultaInvalida (GET /webhook); their paths omit the response: added.',
    apply: (doc) => {
      for (const p of ['/cob', '/cob/{txid}', '/pix', '/webhook']) doc.paths[p].get.responses['400'] ??= PROBLEM_400;
    },
  },
  // Pix Automático (issue 39). The first two are the defects the issue names.
  {
    what: 'RecNotification.required has a broken item, `atualizacao"` (a stray quote), which no notification can have: read as "atualizacao", the property RecAtualizacao defines.',
    apply: (doc) => {
      const rec = doc.components.schemas.RecNotification;
      rec.required = rec.required.map((r: string) => (r === 'atualizacao"' ? 'atualizacao' : r));
    },
  },
  {
    what: 'The cobr webhook example (cobRWebhookNotification1) has dataLiquidacao "2024-20-08", no date (format: date): read as 2024-08-20, the date of its own atualizacao.',
    apply: (doc) =>
      walk(doc, (node) => {
        if (node.dataLiquidacao === '2024-20-08') node.dataLiquidacao = '2024-08-20';
      }),
  },
  {
    what: 'RecBase requires "retentativa", a property no schema defines and no example has (the policy is politicaRetentativa, required by RecConfiguracao): not required. RecSolicitada (POST /rec) inherits RecBase\'s "idRec", which the PSP assigns (RecGerada answers it) and its own examples recBody1/recBody2 lack: not required of the request.',
    apply: (doc) => {
      const { RecBase, RecSolicitada } = doc.components.schemas;
      RecBase.required = RecBase.required.filter((r: string) => r !== 'retentativa');
      const i = RecSolicitada.allOf.findIndex((s: Json) => s.$ref === '#/components/schemas/RecBase');
      RecSolicitada.allOf[i] = {
        ...structuredClone(RecBase),
        required: RecBase.required.filter((r: string) => r !== 'idRec'),
      };
    },
  },
  {
    what: 'SolicRecBase (POST /solicrec) requires "pagador", a property it does not define; its examples have none (the payer\'s account is "destinatario"): not required.',
    apply: (doc) => {
      const base = doc.components.schemas.SolicRecBase;
      base.required = base.required.filter((r: string) => r !== 'pagador');
    },
  },
  {
    what: 'As for the cob, pix and webhook lists, the description section defines 400 RecConsultaInvalida (GET /rec, GET /rec/{idRec}), CobRConsultaInvalida (GET /cobr, GET /cobr/{txid}) and PayloadLocationRecConsultaInvalida (GET /locrec, GET /locrec/{id}); their paths omit the response: added.',
    apply: (doc) => {
      for (const p of ['/rec', '/rec/{idRec}', '/cobr', '/cobr/{txid}', '/locrec', '/locrec/{id}'])
        doc.paths[p].get.responses['400'] ??= PROBLEM_400;
    },
  },
  {
    what: 'SolicRecCompleta requires "rec", a property no schema defines (the recurrence travels as "recPayload", as its examples show) and PayloadLocationRecGerada requires "tipo", which it does not define and its examples lack: neither required.',
    apply: (doc) => {
      const { SolicRecCompleta, PayloadLocationRecGerada } = doc.components.schemas;
      SolicRecCompleta.required = SolicRecCompleta.required.filter((r: string) => r !== 'rec');
      PayloadLocationRecGerada.required = PayloadLocationRecGerada.required.filter((r: string) => r !== 'tipo');
    },
  },
  {
    what: 'DadosPagadorRec requires "ispbParticipante" of the recurrence itself, but defines it inside "pagador" (the payer\'s institution, unknown until a payer approves): required only inside pagador, where it is defined.',
    apply: (doc) => {
      const schema = doc.components.schemas.DadosPagadorRec;
      delete schema.required;
      schema.properties.pagador.required = ['ispbParticipante'];
    },
  },
  {
    what: 'PixAutomatico.valor (the pix of CobRCompleta and CobRNotification) is "type: string" (pattern \\d{1,10}\\.\\d{2}, "Valor do Pix.") and also anyOf PixValorOriginal, PixValorJuros… — objects, the components Pix lists apart under componentesValor — so no value can be both: read as Pix.valor reads, the string.',
    apply: (doc) => {
      delete doc.components.schemas.PixAutomatico.properties.valor.anyOf;
    },
  },
  {
    what: 'encerramento (RecEncerramento, CobRAtualizacao) is a oneOf of {rejeicao} and {cancelamento} whose branches require nothing, so every encerramento matches both and no value can pass a oneOf; as the descriptions mean it, each branch requires its property.',
    apply: (doc) =>
      walk(doc.components.schemas, (node, key) => {
        if (key !== 'encerramento' || !Array.isArray(node.oneOf)) return;
        for (const branch of node.oneOf) branch.required ??= Object.keys(branch.properties ?? {});
      }),
  },
];

/** A fresh copy of the document with the errata applied. */
export async function pixApiDocument(file: string = pixApiDocumentPath()): Promise<Json> {
  const doc = structuredClone(await parse(file));
  for (const erratum of PIX_API_ERRATA) erratum.apply(doc);
  return doc;
}

/** The corrected document as JSON in `dir` (for a tool that reads a file), its path returned. */
export async function writePixApiDocument(dir: string): Promise<string> {
  const file = path.join(dir, 'api-pix-2.9.0-errata.json');
  fs.writeFileSync(file, JSON.stringify(await pixApiDocument()));
  return file;
}

export type SchemaValidator = (schema: string, value: unknown) => string[];

/**
 * Checks a value against components.schemas[name] of the corrected document: [] when valid, else
 * openapi-backend's (Ajv's) messages. One synthetic operation per schema, since openapi-backend
 * validates bodies by operation. Types, required properties, patterns, enums and lengths are
 * checked; formats (date-time, uri) are not (schemathesis checks those on every answer).
 */
export async function pixApiSchemaValidator(schemas: readonly string[]): Promise<SchemaValidator> {
  const doc = await pixApiDocument();
  doc.paths = Object.fromEntries(
    schemas.map((name) => [
      `/__schema/${name}`,
      {
        get: {
          operationId: name,
          responses: {
            200: {
              description: name,
              content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } },
            },
          },
        },
      },
    ]),
  );
  // Structure only: Ajv knows no formats here (and would warn about each); schemathesis checks them.
  const api = new OpenAPIBackend({ definition: doc, quick: true, validate: true, ajvOpts: { logger: false } });
  await api.init();
  return (schema, value) => {
    if (!schemas.includes(schema)) throw new Error(`validator built without schema ${schema}`);
    const result = api.validateResponse(value, schema);
    return result.valid
      ? []
      : (result.errors ?? []).map(
          (e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
        );
  };
}
