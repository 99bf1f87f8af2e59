/**
 * The sandbox PSP as an express app. No listen() here, so tests and server.ts own the socket.
 * Layout: /health (open) · /v1/* (faults → API key → provider API) · /sandbox/* (control token, when set → control).
 */
import express, { type Express, type RequestHandler } from 'express';
import pino, { type Logger } from 'pino';
import { requireApiKey, requireBearer } from './auth';
import { CallbackDispatcher, DEFAULT_CALLBACK_RETRY_DELAYS_MS } from './callbacks';
import type { SandboxContext } from './context';
import { controlRoutes } from './controlRoutes';
import { errorHandler, notFoundHandler } from './errors';
import { applyFaults, releaseFaults, type FaultRuntime } from './faults';
import { memoryJournal, openFileJournal } from './journal';
import { createSandboxState, type SandboxState } from './state';
import { v1Routes } from './v1Routes';

export interface SandboxAppOptions {
  apiKey: string;
  callbackSecret: string;
  logger?: Logger;
  now?: () => Date;
  /** Waits between callback attempts; length + 1 = max attempts. Tests pass tiny values. */
  callbackRetryDelaysMs?: readonly number[];
  /** Per-attempt callback timeout. */
  callbackTimeoutMs?: number;
  /** How long a timeoutRate-hit call holds the connection before dropping it. */
  faultHangMs?: number;
  /** Source of randomness for fault decisions. */
  random?: () => number;
  /** Bearer token the control routes (/sandbox/*) require; open when unset (development, tests). */
  controlToken?: string;
  /** Journal file that keeps charges and transfers across restarts; in memory only when unset. */
  dataFile?: string;
  /** Probability (0..1) that each Pix payment gets an infraction (MED) opened against it. Default 0. */
  openInfractionRate?: number;
}

export interface SandboxApp {
  app: Express;
  state: SandboxState;
  /** Stops callback retries and releases fault timers; call before closing the server. */
  stop: () => void;
}

export function createSandboxApp(opts: SandboxAppOptions): SandboxApp {
  if (!opts.apiKey || !opts.callbackSecret) throw new Error('apiKey and callbackSecret are required');
  const logger = opts.logger ?? pino({ level: 'silent' });
  const state = createSandboxState();
  const journal = opts.dataFile ? openFileJournal(opts.dataFile, state, logger) : memoryJournal;
  const callbacks = new CallbackDispatcher({
    state,
    secret: opts.callbackSecret,
    logger,
    retryDelaysMs: opts.callbackRetryDelaysMs ?? DEFAULT_CALLBACK_RETRY_DELAYS_MS,
    timeoutMs: opts.callbackTimeoutMs ?? 5_000,
  });
  const rate = opts.openInfractionRate ?? 0;
  if (!(rate >= 0 && rate <= 1)) throw new Error('openInfractionRate must be between 0 and 1');
  const ctx: SandboxContext = { state, journal, now: opts.now ?? (() => new Date()), logger, callbacks, openInfractionRate: rate, random: opts.random ?? Math.random };
  const faultRuntime: FaultRuntime = {
    random: opts.random ?? Math.random,
    hangMs: opts.faultHangMs ?? 60_000,
    timers: new Set(),
    hung: new Set(),
  };

  const app = express();
  app.disable('x-powered-by');
  app.use(accessLog(logger));
  app.get('/health', (_req, res) => {
    res.json({ ok: true });
  });
  app.use('/v1', applyFaults(state, faultRuntime), requireApiKey(opts.apiKey), v1Routes(ctx));
  app.use('/sandbox', ...(opts.controlToken ? [requireBearer(opts.controlToken, 'control token')] : []), controlRoutes(ctx));
  app.use(notFoundHandler);
  app.use(errorHandler(logger));

  const stop = () => {
    callbacks.stop();
    releaseFaults(faultRuntime);
  };
  return { app, state, stop };
}

/** Method, path and outcome only: headers (API key) and bodies never reach the log. */
function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      // originalUrl: req.path is router-relative here; the query is dropped on purpose.
      const path = req.originalUrl.split('?')[0];
      logger.info({ method: req.method, path, status: res.statusCode, ms: Math.round(ms) }, 'request');
    });
    next();
  };
}
