/**
 * The sandbox PSP as an express app. No listen() here, so tests and server.ts own the socket.
 * Layout: /health (open) · /v1/* (faults → API key → provider API) · /oauth/token and /api/v2/*
 * (faults → API Pix v2: OAuth2 token → cob, pix, webhook) · /v2/gn/* and /v3/gn/* (faults → Efí's
 * send, sent-Pix, balance and MED routes, the same tokens) · /cobrancas/v1/* (faults → Efí's API
 * Cobranças, boletos on an account: efi/cobrancas.ts) · /qr/v2/*, /.well-known/jwks.json
 * (open: payload locations) · /sandbox/* (control token, when set → control).
 */
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import pino, { type Logger } from 'pino';
import { AccountCertificates, type AccountCaPem } from './accountCertificates';
import { SandboxAccounts } from './accounts';
import { requireApiKey, requireBearer } from './auth';
import { CallbackDispatcher, DEFAULT_CALLBACK_RETRY_DELAYS_MS } from './callbacks';
import type { SandboxContext } from './context';
import { controlRoutes } from './controlRoutes';
import {
  DEFAULT_EFI_OPENING_BALANCE_CENTS,
  DEFAULT_EFI_SEND_SETTLE_MS,
  DEV_PIX_CLIENT_ID,
  DEV_PIX_CLIENT_SECRET,
} from './config';
import { createEfiApi } from './efi';
import { sendEfiUnavailable } from './efi/errors';
import { cobrancasRoutes } from './efi/cobrancas';
import { errorHandler, notFoundHandler, sendError } from './errors';
import { applyFaults, releaseFaults, type FaultRuntime } from './faults';
import { memoryJournal, openFileJournal, revisingJournal } from './journal';
import { SANDBOX_MERCHANT } from './payer';
import { createPixApi, type ObservedApiRequest } from './pixApi';
import { notifyCobPaid } from './pixApi/notifications';
import { PixProblem, sendProblem } from './pixApi/problem';
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
  /** API Pix OAuth2 client credentials; the development values of config.ts when unset. */
  pixClientId?: string;
  pixClientSecret?: string;
  /** Lifetime of API Pix access tokens, in seconds (default 3600). */
  pixTokenTtlSeconds?: number;
  /** The receiving user's Pix keys, which cobs and webhooks may name (default: the sandbox's CNPJ key). */
  pixReceivingKeys?: readonly string[];
  /** How long an API Pix devolução reads EM_PROCESSAMENTO before DEVOLVIDO or NAO_REALIZADO (default 1000 ms). */
  devolucaoSettleMs?: number;
  /** How long an Efí send (PUT /v3/gn/pix/{idEnvio}) reads EM_PROCESSAMENTO (default 150 ms; 0 allowed). */
  efiSendSettleMs?: number;
  /** The Efí account's opening balance in cents (default R$ 1 billion, so tests never run short). */
  efiOpeningBalanceCents?: number;
  /** host[:port] written in payload locations; the Host header of each PUT /cob when unset. */
  locationHost?: string;
  /**
   * The CA (PEM certificate and PKCS#8 key) that signs each new account's client certificate: the
   * mutual-TLS client CA, so the handshake accepts them. Unset: a CA of the sandbox's own, in
   * memory (plain http; over mutual TLS the handshake would refuse the accounts' certificates).
   */
  accountCa?: AccountCaPem;
  /**
   * Sees every API Pix and Efí request that carries a valid token, as received (method, URL,
   * headers, raw body): tests validate what the gateway sends against the BCB document and
   * docs/standards/efi-pix.yaml with it.
   */
  observeApiRequest?: (req: ObservedApiRequest) => void;
}

export interface SandboxApp {
  app: Express;
  state: SandboxState;
  /** Stops callback retries and releases fault timers; call before closing the server. */
  stop: () => void;
  /** Makes what the sandbox would otherwise make on first use (the payload locations' signing key, the accounts' CA). */
  prepare: () => Promise<void>;
  /** Callbacks and Efí send notices not yet answered by the gateway (scheduled, in flight, or waiting to retry). */
  pendingCallbacks: () => number;
}

export function createSandboxApp(opts: SandboxAppOptions): SandboxApp {
  if (!opts.apiKey || !opts.callbackSecret) throw new Error('apiKey and callbackSecret are required');
  const logger = opts.logger ?? pino({ level: 'silent' });
  const state = createSandboxState();
  const journal = revisingJournal(opts.dataFile ? openFileJournal(opts.dataFile, state, logger) : memoryJournal, state);
  const callbacks = new CallbackDispatcher({
    state,
    secret: opts.callbackSecret,
    logger,
    retryDelaysMs: opts.callbackRetryDelaysMs ?? DEFAULT_CALLBACK_RETRY_DELAYS_MS,
    timeoutMs: opts.callbackTimeoutMs ?? 5_000,
  });
  const rate = opts.openInfractionRate ?? 0;
  if (!(rate >= 0 && rate <= 1)) throw new Error('openInfractionRate must be between 0 and 1');
  const receivingKeys = opts.pixReceivingKeys ?? [SANDBOX_MERCHANT.pixKey];
  const pixClient = {
    clientId: opts.pixClientId ?? DEV_PIX_CLIENT_ID,
    clientSecret: opts.pixClientSecret ?? DEV_PIX_CLIENT_SECRET,
  };
  const openingBalanceCents = opts.efiOpeningBalanceCents ?? DEFAULT_EFI_OPENING_BALANCE_CENTS;
  const accounts = new SandboxAccounts(state, {
    ...pixClient,
    keys: receivingKeys,
    name: SANDBOX_MERCHANT.name,
    cnpj: SANDBOX_MERCHANT.cnpj,
    openingBalanceCents,
  });
  const certificates = new AccountCertificates(opts.accountCa);
  const ctx: SandboxContext = {
    state,
    accounts,
    certificates,
    journal,
    now: opts.now ?? (() => new Date()),
    logger,
    callbacks,
    // Called on payment, long after ctx exists.
    cobNotifications: { cobPaid: (rec) => notifyCobPaid(ctx, rec) },
    openInfractionRate: rate,
    random: opts.random ?? Math.random,
  };
  const pixApi = createPixApi(ctx, {
    tokenTtlSeconds: opts.pixTokenTtlSeconds ?? 3600,
    devolucaoSettleMs: opts.devolucaoSettleMs ?? 1000,
    locationHost: opts.locationHost,
    observeApiRequest: opts.observeApiRequest,
  });
  const efi = createEfiApi(ctx, {
    tokens: pixApi.tokens,
    settleMs: opts.efiSendSettleMs ?? DEFAULT_EFI_SEND_SETTLE_MS,
    openingBalanceCents,
    observeApiRequest: opts.observeApiRequest,
  });
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
  // One fault middleware for every API (one seeded schedule); each answers an injected 503 in its own error shape.
  const faults = applyFaults(state, faultRuntime, unavailable);
  app.use('/v1', faults, requireApiKey(opts.apiKey), v1Routes(ctx));
  app.use('/oauth', faults, pixApi.oauth);
  app.use('/api/v2', faults, pixApi.api);
  app.use('/v2/gn', faults, efi.v2);
  app.use('/v3/gn', faults, efi.v3);
  app.use('/cobrancas/v1', faults, cobrancasRoutes(ctx, ctx.accounts, pixApi.tokens));
  app.use(pixApi.locations);
  app.use(
    '/sandbox',
    ...(opts.controlToken ? [requireBearer(opts.controlToken, 'control token')] : []),
    controlRoutes(ctx, efi),
  );
  app.use(notFoundHandler);
  app.use(errorHandler(logger));

  const stop = () => {
    callbacks.stop();
    pixApi.stop();
    efi.stop();
    releaseFaults(faultRuntime);
  };
  return {
    app,
    state,
    stop,
    prepare: () => Promise.all([pixApi.prepare(), certificates.prepare()]).then(() => undefined),
    pendingCallbacks: () => callbacks.pending + efi.webhooks.scheduled,
  };
}

function unavailable(req: Request, res: Response): void {
  if (req.baseUrl === '/v1') sendError(res, 503, 'SANDBOX_FAULT', 'injected fault: provider unavailable');
  else if (req.baseUrl === '/v2/gn' || req.baseUrl === '/v3/gn') sendEfiUnavailable(res);
  else
    sendProblem(
      res,
      new PixProblem(
        'ServicoIndisponivel',
        'Falha injetada: o PSP está indisponível (a requisição não foi processada).',
      ),
    );
}

/** Method, path and outcome only: headers (API key) and bodies never reach the log. */
function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      // originalUrl: req.path is router-relative here; the query is dropped on purpose, and so is a
      // payload location's token (a capability: whoever has the URL can read the cob).
      const path = req.originalUrl.split('?')[0].replace(/^\/qr\/v2\/[^/]+/, '/qr/v2/:token');
      logger.info({ method: req.method, path, status: res.statusCode, ms: Math.round(ms) }, 'request');
    });
    next();
  };
}
