/**
 * Whether a merchant URL may receive our webhooks: syntax always; outside development also the
 * resolved addresses (checked again at each delivery, so a DNS change cannot redirect us inside).
 * The DNS lookup is passed in, so this stays free of I/O of its own.
 */
import net from 'node:net';
import { checkWebhookUrlSyntax, isBlockedHostname, isPrivateAddress, type UrlProblem } from './destination';

export type DestinationProblem = UrlProblem | 'unresolvable';

export interface DestinationPolicy {
  allowPrivate: boolean;
  lookup?: (host: string) => Promise<{ address: string }[]>;
}

export async function checkDestination(
  raw: string,
  policy: DestinationPolicy,
  defaultLookup: (host: string) => Promise<{ address: string }[]>,
): Promise<{ ok: true; url: string } | { ok: false; problem: DestinationProblem }> {
  const syntax = checkWebhookUrlSyntax(raw);
  if (!syntax.ok) return syntax;
  if (policy.allowPrivate) return { ok: true, url: syntax.url.toString() };
  const host = syntax.url.hostname.replace(/^\[|\]$/g, '');
  if (isBlockedHostname(host)) return { ok: false, problem: 'private_address' };
  if (net.isIP(host))
    return isPrivateAddress(host)
      ? { ok: false, problem: 'private_address' }
      : { ok: true, url: syntax.url.toString() };
  let addresses: { address: string }[];
  try {
    addresses = await (policy.lookup ?? defaultLookup)(host);
  } catch {
    return { ok: false, problem: 'unresolvable' };
  }
  if (addresses.length === 0) return { ok: false, problem: 'unresolvable' };
  if (addresses.some((a) => isPrivateAddress(a.address))) return { ok: false, problem: 'private_address' };
  return { ok: true, url: syntax.url.toString() };
}
