/** The api_credentials table (server-to-server client ids and encrypted secrets): its one writer and the way to read it. */
import type { CreationAttributes, Transaction } from 'sequelize';
import { ApiCredential } from './apiCredential';
import { Merchant } from './merchant';

export function findCredentialByClientId(clientId: string): Promise<ApiCredential | null> {
  return ApiCredential.findOne({ where: { clientId } });
}

/**
 * The credential with its merchant (`merchant`, null when it has none), in one statement: every
 * request authenticated by client credentials needs both.
 */
export function findCredentialWithMerchant(clientId: string): Promise<ApiCredential | null> {
  return ApiCredential.findOne({ where: { clientId }, include: [{ model: Merchant, as: 'merchant' }] });
}

export function createCredential(
  attributes: CreationAttributes<ApiCredential>,
  transaction?: Transaction,
): Promise<ApiCredential> {
  return ApiCredential.create(attributes, { transaction });
}

/** A merchant's credentials, newest first, one page, with the total. */
export function listCredentials(q: { merchantId: string; limit: number; offset: number }) {
  return ApiCredential.findAndCountAll({
    where: { merchantId: q.merchantId },
    order: [
      ['createdAt', 'DESC'],
      ['id', 'ASC'],
    ],
    limit: q.limit,
    offset: q.offset,
  });
}

export async function deactivateCredential(credential: ApiCredential): Promise<void> {
  await credential.update({ active: false });
}
