/**
 * Every API Pix request a test stack's gateway sends, checked against the BCB's document by
 * openapi-backend (pixApiRequestValidator.ts) as the sandbox receives it. A violation is kept for
 * the stack's stop, which then fails, and written to the run's log directory, where scripts/test.ts
 * fails the run for it: a shared stack's stop runs in its own process, after its files are done.
 */
import type { ObservedApiRequest } from '../../sandbox/pixApi';
import { PixApiRequestValidator } from './pixApiRequestValidator';
import { appendTestLog } from './testLogs';

/** In the run's log directory; scripts/test.ts reads it after the suite (PIX_API_VIOLATIONS_LOG there). */
export const PIX_API_VIOLATIONS_LOG = 'pix-api-violations.log';

export class PixApiAudit {
  private checked = 0;
  private readonly violations: string[] = [];
  /** "METHOD /path" of every request, without query, headers or body. */
  private readonly calls: string[] = [];

  private constructor(private readonly validator: PixApiRequestValidator) {}

  static async create(): Promise<PixApiAudit> {
    return new PixApiAudit(await PixApiRequestValidator.create({ apiRoot: '/api/v2' }));
  }

  /** The sandbox's observeApiRequest hook. */
  readonly observe = (req: ObservedApiRequest): void => {
    if (!this.validator.concerns(req)) return;
    this.checked += 1;
    this.calls.push(`${req.method} ${req.url.split('?')[0]}`);
    const found = this.validator.violationsOf(req);
    if (found.length === 0) return;
    this.violations.push(...found);
    // Method, path and the rule broken: no header or body (a token, a payer's document).
    appendTestLog(PIX_API_VIOLATIONS_LOG, found.join('\n'));
  };

  report(): { checked: number; violations: string[]; calls: string[] } {
    return { checked: this.checked, violations: [...this.violations], calls: [...this.calls] };
  }

  assertClean(): void {
    if (this.violations.length > 0)
      throw new Error(
        `the gateway sent API Pix requests that break the BCB document:\n${this.violations.slice(0, 20).join('\n')}`,
      );
  }
}
