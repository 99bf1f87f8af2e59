/** The api_credentials table (server-to-server client ids and encrypted secrets): its one writer and the way to read it. */
import type { CreationAttributes, Transaction } from 'sequelize';
import { ApiCredential } from './apiCredential';

export function findCredentialByClientId(clientId: string): Promise<ApiCredential | null> {
  return ApiCredential.findOne({ where: { clientId } });
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
