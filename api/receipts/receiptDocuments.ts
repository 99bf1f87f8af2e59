/**
 * Receipts rendered once. The PDF of a set of facts is looked up by a key that hashes everything
 * the PDF shows or depends on: the facts (refunds included: a later refund is a new receipt),
 * the verify URL's base, the layout version and the verification key's fingerprint (a rotated key
 * must not keep handing out codes it no longer opens). Hit: the stored bytes, no render. Miss:
 * one render per key in this process however many requests ask at once (they share the promise);
 * two processes racing store one row (ON CONFLICT) and both answer the stored bytes, so every
 * download of the same facts is byte-identical.
 */
import crypto from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { receiptDocumentStore } from '../../db/receipts';
import type { ReceiptFacts } from '../../core/receipts/facts';
import { createVerificationCode, receiptDigest, receiptVerifyUrl } from '../../core/receipts/verificationCode';
import os from 'node:os';
import path from 'node:path';
import { Piscina } from 'piscina';
import type { RenderTask } from '../../core/receipts/pdf/renderReceiptPdf';
import { withoutHeapCaps } from '../../core/nodeArgs';

/** Bump when the PDF layout changes, so stored receipts are drawn again. */
const LAYOUT_VERSION = 'receipt-layout-v1';

export interface ReceiptDocumentsDeps {
  sequelize: Sequelize;
  renderer: ReceiptRenderer;
  /** The 32-byte key of verification codes (core/receipts/verificationCode.ts receiptKeyFor). */
  verificationKey: Buffer;
  publicBaseUrl: string;
}

/** JSON with keys sorted at every level: the same facts give the same text whatever built them. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export class ReceiptDocuments {
  private readonly inFlight = new Map<string, Promise<Buffer>>();
  private readonly keyFingerprint: string;

  constructor(private readonly deps: ReceiptDocumentsDeps) {
    this.keyFingerprint = crypto
      .createHash('sha256')
      .update('receipt-cache-key-fingerprint')
      .update(deps.verificationKey)
      .digest('hex');
  }

  cacheKey(facts: ReceiptFacts): string {
    return crypto
      .createHash('sha256')
      .update(canonicalJson([LAYOUT_VERSION, this.deps.publicBaseUrl, this.keyFingerprint, facts]))
      .digest('hex');
  }

  /** The PDF of these facts: stored, or rendered now (once) and stored. */
  async pdf(facts: ReceiptFacts): Promise<Buffer> {
    const key = this.cacheKey(facts);
    const stored = await this.read(key);
    if (stored) return stored;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.renderAndStore(key, facts).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  private read(key: string): Promise<Buffer | null> {
    return receiptDocumentStore.findPdf(this.deps.sequelize, key);
  }

  private async renderAndStore(key: string, facts: ReceiptFacts): Promise<Buffer> {
    // Stored meanwhile by a request that finished between our read and our claim.
    const again = await this.read(key);
    if (again) return again;
    const code = createVerificationCode(facts, this.deps.verificationKey);
    const pdf = await this.deps.renderer.render(facts, receiptVerifyUrl(this.deps.publicBaseUrl, code));
    const inserted = await receiptDocumentStore.storePdf(this.deps.sequelize, {
      cacheKey: key,
      kind: facts.kind,
      documentId: facts.documentId,
      digest: receiptDigest(facts),
      pdf,
    });
    if (inserted) return pdf;
    // Another process stored the same facts first: answer its bytes, so every download matches.
    return (await this.read(key)) ?? pdf;
  }
}

/**
 * The default renderer: a piscina pool of worker threads running core/receipts/pdf/renderReceiptPdf.ts, so drawing a PDF
 * never blocks the API's event loop. One pool per process, started on the first render (most
 * processes and tests never draw a receipt), its threads leaving after a minute idle; idle threads
 * do not keep the process alive.
 *
 * From TypeScript sources (tsx in development, Jest in tests) the thread's entry is a .ts file that a
 * plain worker thread cannot load: the pool then preloads tsx's require hook in its threads.
 * Compiled, the renderer's .js loads as it is.
 */
export interface ReceiptRenderer {
  render(facts: ReceiptFacts, verifyUrl: string): Promise<Buffer>;
}

const fromSources = path.extname(__filename) === '.ts';

/** Threads: config.receiptRenderThreads (RECEIPT_RENDER_THREADS), else the cores but one (the event loop's), 1 to 4. */
function threadCount(configured: number | null | undefined): number {
  return configured ?? Math.min(4, Math.max(1, os.availableParallelism() - 1));
}

/** This process's node flags for the threads, without the heap caps a thread refuses (core/nodeArgs.ts). */
function workerExecArgv(): string[] {
  const own = withoutHeapCaps(process.execArgv);
  if (!fromSources) return own;
  // Already under tsx (`node --import tsx`): the threads inherit its hooks.
  if (own.some((a) => a.includes('tsx'))) return own;
  return [...own, '--require', require.resolve('tsx/cjs')];
}

let pool: Piscina<RenderTask, Uint8Array> | undefined;
let renders = 0;

function sharedPool(threads: number | null | undefined): Piscina<RenderTask, Uint8Array> {
  pool ??= new Piscina<RenderTask, Uint8Array>({
    // The renderer's own module is the thread's entry (its default export).
    filename: require.resolve('../../core/receipts/pdf/renderReceiptPdf'),
    execArgv: workerExecArgv(),
    minThreads: 0,
    maxThreads: threadCount(threads),
    idleTimeout: 60_000,
  });
  return pool;
}

/** PDFs drawn by this process since it started (tests and the benchmark check the cache with it). */
export function receiptRenderCount(): number {
  return renders;
}

/** The renderer on the process's one pool; `threads` sizes the pool when this render starts it. */
export function pooledReceiptRenderer(threads?: number | null): ReceiptRenderer {
  return {
    async render(facts, verifyUrl) {
      renders += 1;
      const bytes = await sharedPool(threads).run({ facts, verifyUrl });
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    },
  };
}
