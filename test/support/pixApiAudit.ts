/**
 * Every API Pix request a test stack's gateway sends, checked against the BCB's document by
 * openapi-backend (pixApiRequestValidator.ts) as the sandbox receives it, and every request to
 * Efí's own routes (/v2/gn, /v3/gn) against docs/standards/efi-pix.yaml (efiRequestValidator.ts),
 * counted apart (`efi` in the report) so the API Pix figures mean what they did. A violation is kept for
 * the stack's stop, which then fails, and written to the run's log directory, where scripts/test.ts
 * fails the run for it: a shared stack's stop runs in its own process, after its files are done.
 */
import type { ObservedApiRequest } from '../../sandbox/pixApi';
import { EfiRequestValidator } from './efiRequestValidator';
import { PixApiRequestValidator } from './pixApiRequestValidator';
import { appendTestLog } from './testLogs';

/** In the run's log directory; scripts/test.ts reads it after the suite (PIX_API_VIOLATIONS_LOG there). */
export const PIX_API_VIOLATIONS_LOG = 'pix-api-violations.log';

export class PixApiAudit {
  private checked = 0;
  private readonly violations: string[] = [];
  /** "METHOD /path" of every request, without query, headers or body. */
  private readonly calls: string[] = [];

  private readonly efi = { checked: 0, violations: [] as string[], calls: [] as string[] };

  private constructor(
    private readonly validator: PixApiRequestValidator,
    private readonly efiValidator: EfiRequestValidator,
  ) {}

  static async create(): Promise<PixApiAudit> {
    const [pix, efi] = await Promise.all([
      PixApiRequestValidator.create({ apiRoot: '/api/v2' }),
      EfiRequestValidator.create(),
    ]);
    return new PixApiAudit(pix, efi);
  }

  /** The sandbox's observeApiRequest hook. */
  readonly observe = (req: ObservedApiRequest): void => {
    if (this.efiValidator.concerns(req)) return this.observeEfi(req);
    if (!this.validator.concerns(req)) return;
    this.checked += 1;
    this.calls.push(`${req.method} ${req.url.split('?')[0]}`);
    const found = this.validator.violationsOf(req);
    if (found.length === 0) return;
    this.violations.push(...found);
    // Method, path and the rule broken: no header or body (a token, a payer's document).
    appendTestLog(PIX_API_VIOLATIONS_LOG, found.join('\n'));
  };

  private observeEfi(req: ObservedApiRequest): void {
    this.efi.checked += 1;
    this.efi.calls.push(`${req.method} ${req.url.split('?')[0]}`);
    const found = this.efiValidator.violationsOf(req);
    if (found.length === 0) return;
    this.efi.violations.push(...found);
    appendTestLog(PIX_API_VIOLATIONS_LOG, found.map((v) => `Efí: ${v}`).join('\n'));
  }

  /** API Pix's figures as before; Efí's apart. */
  report(): {
    checked: number;
    violations: string[];
    calls: string[];
    efi: { checked: number; violations: string[]; calls: string[] };
  } {
    return {
      checked: this.checked,
      violations: [...this.violations],
      calls: [...this.calls],
      efi: { checked: this.efi.checked, violations: [...this.efi.violations], calls: [...this.efi.calls] },
    };
  }

  assertClean(): void {
    if (this.violations.length > 0)
      throw new Error(
        `the gateway sent API Pix requests that break the BCB document:\n${this.violations.slice(0, 20).join('\n')}`,
      );
    if (this.efi.violations.length > 0)
      throw new Error(
        `the gateway sent Efí requests that break docs/standards/efi-pix.yaml:\n${this.efi.violations.slice(0, 20).join('\n')}`,
      );
  }
}
