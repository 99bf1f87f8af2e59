/**
 * The payer's side of a dynamic QR code: GET /qr/v2/{token} (the cob's payload location) answers
 * application/jose, the cob's CobPayload signed (locationSigner.ts); GET /.well-known/jwks.json is
 * the key set the JWS header's jku points at. Open (no token, no faults), as the document says of
 * locations: any payer's PSP fetches them. A removed or paid cob is still served, with its
 * status, which the document leaves to the PSP; an unknown location is 404 CobPayloadNaoEncontrado.
 */
import { Router, type Request } from 'express';
import type { Logger } from 'pino';
import type { SandboxContext } from '../context';
import { findCobByLocationToken } from './cobs';
import { cobPayloadJson } from './cobView';
import type { LocationSigner } from './locationSigner';
import { PixProblem, problemErrorHandler } from './problem';
import { findRecByLocationToken, recPayloadJson } from './recs';

export const JWKS_PATH = '/.well-known/jwks.json';

/** The key set lives on the host the payer reached the location at (the Manual de Segurança asks for the same host). */
function jwksUrl(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? 'localhost'}${JWKS_PATH}`;
}

export function locationRoutes(ctx: SandboxContext, signer: LocationSigner, logger: Logger): Router {
  const router = Router();

  // A recurrence's location (journeys 2 and 3): its RecPayload, signed the same way.
  router.get('/qr/v2/rec/:token', async (req, res) => {
    const rec = findRecByLocationToken(ctx, req.params.token);
    if (!rec) throw new PixProblem('PayloadLocationRecNaoEncontrado', 'Nenhuma recorrência nesta location.');
    if (rec.status !== 'CRIADA' && rec.status !== 'APROVADA')
      throw new PixProblem('RecPayloadOperacaoInvalida', `A recorrência desta location está ${rec.status}.`);
    const jws = await signer.sign(recPayloadJson(ctx, rec), jwksUrl(req));
    res.type('application/jose').send(jws);
  });

  router.get('/qr/v2/:token', async (req, res) => {
    const rec = findCobByLocationToken(ctx, req.params.token);
    if (!rec)
      throw new PixProblem(
        'CobPayloadNaoEncontrado',
        'A cobrança em questão não foi encontrada para a location requisitada.',
      );
    const jws = await signer.sign(cobPayloadJson(rec, ctx.now()), jwksUrl(req));
    res.type('application/jose').send(jws);
  });

  router.get(JWKS_PATH, async (_req, res) => {
    res.json(await signer.jwks());
  });

  router.use('/qr/v2', problemErrorHandler(logger));
  return router;
}
