/**
 * Every seller route, behind client credentials. Mounted at /sellers (canonical) and again at
 * the legacy /rifeiro prefix, which answers identically plus a Deprecation header.
 */
import { Router, type RequestHandler } from 'express';
import { sellerPixRouter } from './pix/router';
import type { SellerPixService } from './pix/service';

export function sellersRouter(deps: { authenticate: RequestHandler; sellerPix: SellerPixService }): Router {
  const router = Router();
  router.use(deps.authenticate);
  router.use('/pix', sellerPixRouter(deps.sellerPix));
  return router;
}

export const legacyDeprecation: RequestHandler = (_req, res, next) => {
  res.setHeader('Deprecation', 'true');
  res.setHeader('Link', '</sellers>; rel="successor-version"');
  next();
};
