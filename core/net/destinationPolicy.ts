/**
 * Whether a merchant URL may receive our webhooks: syntax always; outside development also the
 * resolved addresses (checked again at each delivery, so a DNS change cannot redirect us inside).
 * The DNS lookup is passed in, so this stays free of I/O of its own.
 */
import net from 'node:net';
import {
  checkWebhookUrlSyntax,
  isBlockedHostname,
  isPrivateAddress,
  privateReceiverKey,
  privateReceiversOf,
  type PrivateReceiver,
  type UrlProblem,
} from './destination';

export type DestinationProblem = UrlProblem | 'unresolvable';

export interface DestinationPolicy {
  allowPrivate: boolean;
  /** WEBHOOK_PRIVATE_RECEIVERS: private `ip:port`s allowed all the same, each to the merchants it names (core/net/destination.ts). */
  privateReceivers?: readonly PrivateReceiver[];
  lookup?: (host: string) => Promise<{ address: string }[]>;
}

/** The URL's port, its scheme's default when it names none. */
export function urlPort(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/** Whether `raw` may receive the webhooks of merchant `merchantId` (the private receivers it is named in pass). */
export async function checkDestination(
  raw: string,
  merchantId: string,
  policy: DestinationPolicy,
  defaultLookup: (host: string) => Promise<{ address: string }[]>,
): Promise<{ ok: true; url: string } | { ok: false; problem: DestinationProblem }> {
  const syntax = checkWebhookUrlSyntax(raw);
  if (!syntax.ok) return syntax;
  if (policy.allowPrivate) return { ok: true, url: syntax.url.toString() };
  const host = syntax.url.hostname.replace(/^\[|\]$/g, '');
  const port = urlPort(syntax.url);
  const receivers = privateReceiversOf(policy.privateReceivers, merchantId);
  const refused = (address: string) => isPrivateAddress(address) && !receivers.has(privateReceiverKey(address, port));
  if (isBlockedHostname(host)) return { ok: false, problem: 'private_address' };
  if (net.isIP(host))
    return refused(host) ? { ok: false, problem: 'private_address' } : { ok: true, url: syntax.url.toString() };
  let addresses: { address: string }[];
  try {
    addresses = await (policy.lookup ?? defaultLookup)(host);
  } catch {
    return { ok: false, problem: 'unresolvable' };
  }
  if (addresses.length === 0) return { ok: false, problem: 'unresolvable' };
  if (addresses.some((a) => refused(a.address))) return { ok: false, problem: 'private_address' };
  return { ok: true, url: syntax.url.toString() };
}
