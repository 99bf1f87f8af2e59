/**
 * Decides whether a merchant-given URL may receive our webhooks. In development and tests local
 * receivers are allowed; otherwise the host must resolve, and only to public addresses.
 */
import dns from 'node:dns/promises';
import net from 'node:net';
import { checkWebhookUrlSyntax, isBlockedHostname, isPrivateAddress } from '../../core/net/destination';
import { errors } from '../errors/apiError';

export interface DestinationPolicy {
  allowPrivate: boolean;
  lookup?: (host: string) => Promise<{ address: string }[]>;
}

const messages = {
  not_a_url: 'must be an absolute URL',
  bad_scheme: 'must use http or https',
  credentials_in_url: 'must not contain credentials',
  too_long: 'must be at most 2048 characters',
  private_address: 'must not point to a private, loopback or internal address',
  unresolvable: 'host does not resolve',
} as const;

export async function assertWebhookDestination(raw: string, field: string, policy: DestinationPolicy): Promise<string> {
  const refuse = (m: keyof typeof messages) => errors.validation('request body is invalid', { fields: [{ field, message: messages[m] }] });
  const syntax = checkWebhookUrlSyntax(raw);
  if (!syntax.ok) throw refuse(syntax.problem);
  if (policy.allowPrivate) return syntax.url.toString();
  const host = syntax.url.hostname.replace(/^\[|\]$/g, '');
  if (isBlockedHostname(host)) throw refuse('private_address');
  if (net.isIP(host)) {
    if (isPrivateAddress(host)) throw refuse('private_address');
    return syntax.url.toString();
  }
  const lookup = policy.lookup ?? ((h: string) => dns.lookup(h, { all: true }));
  let addresses: { address: string }[];
  try {
    addresses = await lookup(host);
  } catch {
    throw refuse('unresolvable');
  }
  if (addresses.length === 0) throw refuse('unresolvable');
  if (addresses.some((a) => isPrivateAddress(a.address))) throw refuse('private_address');
  return syntax.url.toString();
}
