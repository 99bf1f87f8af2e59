/**
 * The sandbox as an API Pix v2 PSP (the BCB's standard, release 2.9.0) for collections:
 * POST /oauth/token, /api/v2/{cob,pix,webhook} and Pix Automático's (recRoutes.ts) behind a bearer token, and the payload locations
 * (/qr/v2/{token}, /.well-known/jwks.json). Each token is bound to one account (accounts.ts): a
 * route sees that account's cobs, Pix and webhooks only. Everything here works on the sandbox's one model:
 * a cob is a charge, a devolução is a payment-return transfer (README "API Pix").
 */
import express, { Router, type RequestHandler } from 'express';
import type { SandboxContext } from '../context';
import { cobRoutes, type CobRouteOptions } from './cobRoutes';
import { DevolucaoSettlements } from './notifications';
import { AccessTokens, oauthRoutes, requireAccessToken } from './oauth';
import { pixRoutes } from './pixRoutes';
import { recRoutes } from './recRoutes';
import { problemErrorHandler, problemNotFound } from './problem';
import { webhookRoutes } from './webhookRoutes';
import { createLocationSigner } from './locationSigner';
import { locationRoutes } from './locationRoutes';

export interface PixApiOptions {
  tokenTtlSeconds: number;
  /** How long a devolução reads EM_PROCESSAMENTO. */
  devolucaoSettleMs: number;
  /** host[:port] for payload locations; the Host each PUT /cob called when unset. */
  locationHost?: string;
  /** Sees every API request that carries a valid token, as received (see SandboxAppOptions). */
  observeApiRequest?: (req: ObservedApiRequest) => void;
}

/** An API Pix request as the sandbox received it. */
export interface ObservedApiRequest {
  method: string;
  /** Path and query string as received: "/api/v2/cob/…". */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The raw body, when there is one. */
  body?: string;
}

export interface PixApi {
  /** Mount at /oauth. */
  oauth: Router;
  /** Mount at /api/v2. */
  api: Router;
  /** Mount at the root: /qr/v2/{token} and /.well-known/jwks.json. */
  locations: Router;
  /** The bearer tokens /oauth/token issues: Efí's routes (sandbox/efi/) accept the same ones. */
  tokens: AccessTokens;
  /** Makes the payload locations' signing key now rather than on the first read. */
  prepare(): Promise<void>;
  stop(): void;
}

/**
 * Hands each request to `observe` as received (the raw body from express.json's verify); Efí's
 * routers use it too. A request whose sender went away before its body was read is not handed
 * on: express.json skips reading a request whose socket is no longer readable, so it would look
 * like a request sent without its body (a worker killed mid-send did that), which the sender
 * never sent and nobody answers.
 */
export function observer(observe: (req: ObservedApiRequest) => void): RequestHandler {
  return (req, _res, next) => {
    const raw = (req as { rawPixBody?: Buffer }).rawPixBody;
    if (!raw && senderGone(req)) return next();
    observe({
      method: req.method,
      url: req.originalUrl,
      headers: req.headers,
      ...(raw ? { body: raw.toString('utf8') } : {}),
    });
    next();
  };
}

function senderGone(req: { socket?: { readable: boolean; destroyed: boolean } | null }): boolean {
  return !req.socket || req.socket.destroyed || !req.socket.readable;
}

export function createPixApi(ctx: SandboxContext, options: PixApiOptions): PixApi {
  const tokens = new AccessTokens(options.tokenTtlSeconds);
  const settlements = new DevolucaoSettlements(ctx);
  const cobOptions: CobRouteOptions = { locationHost: options.locationHost };

  const api = Router();
  // The token first: a request without one is not even read.
  api.use(requireAccessToken(tokens));
  api.use(
    express.json({
      limit: '64kb',
      verify: (req, _res, buf) => void ((req as { rawPixBody?: Buffer }).rawPixBody = buf),
    }),
  );
  if (options.observeApiRequest) api.use(observer(options.observeApiRequest));
  api.use(cobRoutes(ctx, cobOptions));
  api.use(pixRoutes(ctx, { devolucaoSettleMs: options.devolucaoSettleMs, settlements }));
  api.use(webhookRoutes(ctx));
  api.use(recRoutes(ctx, cobOptions));
  api.use(problemNotFound);
  api.use(problemErrorHandler(ctx.logger));

  const signer = createLocationSigner();
  return {
    oauth: oauthRoutes(ctx.accounts, tokens),
    tokens,
    api,
    locations: locationRoutes(ctx, signer, ctx.logger),
    prepare: () => signer.prepare(),
    stop: () => settlements.stop(),
  };
}
