/**
 * The receipt renderer: a piscina pool of worker threads running renderWorker.ts, so drawing a PDF
 * never blocks the API's event loop. One pool per process, started on the first render (most
 * processes and tests never draw a receipt), its threads leaving after a minute idle; idle threads
 * do not keep the process alive.
 *
 * From TypeScript sources (tsx in development, Jest in tests) the worker is a .ts file that a
 * plain worker thread cannot load: the pool then preloads tsx's require hook in its threads.
 * Compiled, renderWorker.js sits beside this file and loads as it is.
 */
import os from 'node:os';
import path from 'node:path';
import { Piscina } from 'piscina';
import type { ReceiptFacts } from '../../core/receipts/facts';
import { withoutHeapCaps } from '../nodeArgs';
import type { RenderTask } from './renderWorker';

export interface ReceiptRenderer {
  render(facts: ReceiptFacts, verifyUrl: string): Promise<Buffer>;
}

const fromSources = path.extname(__filename) === '.ts';

/** Threads: config.receiptRenderThreads (RECEIPT_RENDER_THREADS), else the cores but one (the event loop's), 1 to 4. */
function threadCount(configured: number | null | undefined): number {
  return configured ?? Math.min(4, Math.max(1, os.availableParallelism() - 1));
}

/** This process's node flags for the threads, without the heap caps a thread refuses (api/nodeArgs.ts). */
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
    filename: path.join(__dirname, fromSources ? 'renderWorker.ts' : 'renderWorker.js'),
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

/** Stops the pool's threads (process shutdown); a later render starts a new pool. */
export async function closeReceiptRenderPool(): Promise<void> {
  const p = pool;
  pool = undefined;
  await p?.destroy();
}
