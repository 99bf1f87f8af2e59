/** The API's side of the destination rules: a refused URL is a 400 naming the field. */
import dns from 'node:dns/promises';
import { checkDestination, type DestinationPolicy, type DestinationProblem } from '../../core/net/destinationPolicy';
import { errors } from '../errors/apiError';

export type { DestinationPolicy };

const messages: Record<DestinationProblem, string> = {
  not_a_url: 'must be an absolute URL',
  bad_scheme: 'must use http or https',
  credentials_in_url: 'must not contain credentials',
  too_long: 'must be at most 2048 characters',
  private_address: 'must not point to a private, loopback or internal address',
  unresolvable: 'host does not resolve',
};

/** `raw` as stored, if merchant `merchantId` may receive webhooks there; else a 400 naming `field`. */
export async function assertWebhookDestination(
  raw: string,
  field: string,
  merchantId: string,
  policy: DestinationPolicy,
): Promise<string> {
  const result = await checkDestination(raw, merchantId, policy, (host) => dns.lookup(host, { all: true }));
  if (!result.ok)
    throw errors.validation('request body is invalid', { fields: [{ field, message: messages[result.problem] }] });
  return result.url;
}
