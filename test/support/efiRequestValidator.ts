/**
 * Checks the gateway's requests to Efí's own routes (sending Pix, the sent-Pix reads, the
 * balance, MED) against docs/standards/efi-pix.yaml, with openapi-backend as
 * pixApiRequestValidator.ts does for API Pix: the route must be one of the document's operations,
 * and its path and query parameters and its JSON body must follow the document's schemas
 * (formats by ajv-formats). The document's paths are whole (/v2/gn/…, /v3/gn/…) and its servers
 * have no base path, so requests are matched from the root. The send's webhook (a callback in the
 * document) is Efí's request to the gateway, not one the gateway sends: not checked here.
 */
import path from 'node:path';
import { parse } from '@readme/openapi-parser';
import addFormats from 'ajv-formats';
import { OpenAPIBackend, type Document } from 'openapi-backend';
import { requestViolations, type ReceivedRequest } from './pixApiRequestValidator';

export function efiDocumentPath(): string {
  return path.resolve(__dirname, '..', '..', 'docs', 'standards', 'efi-pix.yaml');
}

/** Efí's own routes live under these prefixes; everything else (API Pix, /oauth) is not this document's. */
const EFI_PREFIXES = ['/v2/gn/', '/v3/gn/'];

const validators = new Map<string, Promise<EfiRequestValidator>>();

export class EfiRequestValidator {
  private constructor(private readonly api: OpenAPIBackend) {}

  /** One per document per process: parsing and dereferencing is the costly part. */
  static create(opts: { document?: string } = {}): Promise<EfiRequestValidator> {
    const document = opts.document ?? efiDocumentPath();
    let made = validators.get(document);
    if (!made) {
      made = EfiRequestValidator.make(document);
      validators.set(document, made);
    }
    return made;
  }

  private static async make(document: string): Promise<EfiRequestValidator> {
    const definition = structuredClone(await parse(document)) as Document;
    const api = new OpenAPIBackend({
      definition,
      apiRoot: '/',
      strict: false,
      quick: true,
      customizeAjv: (ajv) => {
        addFormats(ajv);
        return ajv;
      },
    });
    await api.init();
    return new EfiRequestValidator(api);
  }

  concerns(req: ReceivedRequest): boolean {
    const p = req.url.split('?')[0];
    return EFI_PREFIXES.some((prefix) => p.startsWith(prefix));
  }

  /** What is wrong with the request by the document, one line each; empty when nothing is. */
  violationsOf(req: ReceivedRequest): string[] {
    return requestViolations(this.api, req, "Efí's document");
  }
}
