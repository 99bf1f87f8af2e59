/**
 * Credential scopes become enforced (api/identity/auth/scopes.ts). Until now every credential could call
 * every route whatever its `scopes` said, so every existing credential is given the full set
 * (its old entries are kept): nobody loses access on upgrade. The list is written out here, not
 * imported, so this migration stays what it was when later scopes are added.
 */
import type { Migration } from '../migrator';

export const fullCredentialScopes = [
  'charges:read',
  'charges:write',
  'withdrawals:read',
  'withdrawals:write',
  'webhooks:read',
  'webhooks:write',
  'payouts:read',
  'payouts:write',
];

export const credentialScopes: Migration = {
  name: '0008_credential_scopes',
  async up({ context: sequelize }) {
    await sequelize.query(
      `UPDATE api_credentials
          SET scopes = ARRAY(SELECT DISTINCT s FROM unnest(scopes || CAST(:full AS TEXT[])) AS s ORDER BY s)`,
      { replacements: { full: `{${fullCredentialScopes.join(',')}}` } },
    );
  },
};
