/** The headers of a JSON request authenticated by a merchant's API credential, as the bench's load generators send it. */
import type { MerchantCredentials } from '../../db/identity/merchantAdmin';

export function credentialHeaders(
  creds: Pick<MerchantCredentials, 'clientId' | 'clientSecret'>,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-client-id': creds.clientId,
    'x-client-secret': creds.clientSecret,
  };
}
