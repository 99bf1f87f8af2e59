/** HTTP ↔ DashboardService for the dashboard routes (router.ts). */
import type { RequestHandler } from 'express';
import { signedIn } from '../identity/auth/bearer';
import { consumeActionToken } from '../identity/twoFactor/actionTokens';
import { parseOrThrow } from '../validation/validate';
import { brandingBody, clientIdParam, createCredentialBody, ensureMerchantBody, listCredentialsQuery } from './schema';
import type { DashboardService } from './service';

export function dashboardHandlers(
  dashboard: DashboardService,
): Record<
  'ensureMerchant' | 'myMerchant' | 'updateBranding' | 'createCredential' | 'listCredentials' | 'revokeCredential',
  RequestHandler
> {
  return {
    ensureMerchant: async (req, res) => {
      const body = parseOrThrow(ensureMerchantBody, req.body);
      res.json(await dashboard.ensureMerchant(signedIn(req).user, body));
    },
    myMerchant: async (req, res) => {
      res.json(await dashboard.myMerchant(signedIn(req).user.id));
    },
    updateBranding: async (req, res) => {
      const body = parseOrThrow(brandingBody, req.body);
      res.json(await dashboard.updateBranding(signedIn(req).user.id, body));
    },
    createCredential: async (req, res) => {
      const { user } = signedIn(req);
      const body = parseOrThrow(createCredentialBody, req.body);
      // The role first: a viewer is told 403 without spending their action token.
      await dashboard.checkCanCreateCredential(user.id, body.merchantId);
      await consumeActionToken(req, user.id, 'create-credential');
      const issued = await dashboard.createCredential(user.id, body);
      res.status(201).json({ ...issued, createdAt: issued.createdAt.toISOString() });
    },
    listCredentials: async (req, res) => {
      const query = parseOrThrow(listCredentialsQuery, req.query, 'query');
      res.json(await dashboard.listCredentials(signedIn(req).user.id, query));
    },
    revokeCredential: async (req, res) => {
      const clientId = parseOrThrow(clientIdParam, req.params.clientId, 'client id');
      res.json(await dashboard.revokeCredential(signedIn(req).user.id, clientId));
    },
  };
}
