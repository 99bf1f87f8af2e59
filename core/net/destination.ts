/**
 * Where the gateway may send merchant webhooks. Only http(s), no credentials in the URL, and —
 * outside development — never a private, loopback, link-local or otherwise internal address,
 * so a merchant cannot make us call into our own network (SSRF).
 */
import ipaddr from 'ipaddr.js';

export type UrlProblem = 'not_a_url' | 'bad_scheme' | 'credentials_in_url' | 'private_address' | 'too_long';

export function checkWebhookUrlSyntax(raw: string): { ok: true; url: URL } | { ok: false; problem: UrlProblem } {
  if (raw.length > 2048) return { ok: false, problem: 'too_long' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: 'not_a_url' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, problem: 'bad_scheme' };
  if (url.username || url.password) return { ok: false, problem: 'credentials_in_url' };
  if (!url.hostname) return { ok: false, problem: 'not_a_url' };
  return { ok: true, url };
}

const blockedHostnames = new Set([
  'localhost',
  'localhost.localdomain',
  'ip6-localhost',
  'ip6-loopback',
  'metadata.google.internal',
]);

export function isBlockedHostname(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return (
    blockedHostnames.has(host) || host.endsWith('.localhost') || host.endsWith('.internal') || host.endsWith('.local')
  );
}

/**
 * True for any address a public webhook must not reach: every special-purpose range of IPv4 and
 * IPv6 (ipaddr.js's classification: anything but plain unicast), and IPv6 forms that embed an
 * IPv4 address (mapped, compatible, NAT64, 6to4) judged by the address they embed. Teredo and
 * local-use NAT64 are refused whole: their far end cannot be judged from here.
 * A string that is not an IP address is not an address: false.
 */
export function isPrivateAddress(address: string): boolean {
  const raw = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(raw)) return false;
  const ip = ipaddr.parse(raw);
  if (ip.kind() === 'ipv4') return (ip as ipaddr.IPv4).range() !== 'unicast';
  const v6 = ip as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded) return embedded.range() !== 'unicast';
  return v6.range() !== 'unicast';
}

/** The IPv4 address an IPv6 address carries, for the forms that route to it. */
function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = ip.parts; // eight 16-bit groups
  const v4 = (hi: number, lo: number) => ipaddr.fromByteArray([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]) as ipaddr.IPv4;
  const zeros = (from: number, to: number) => p.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && p[5] === 0xffff) return v4(p[6], p[7]); // ::ffff:a.b.c.d (mapped)
  if (zeros(0, 6) && (p[6] !== 0 || p[7] > 1)) return v4(p[6], p[7]); // ::a.b.c.d (compatible; not :: or ::1)
  if (p[0] === 0x64 && p[1] === 0xff9b && zeros(2, 6)) return v4(p[6], p[7]); // 64:ff9b::/96 (NAT64)
  if (p[0] === 0x2002) return v4(p[1], p[2]); // 2002::/16 (6to4)
  return null;
}

/**
 * WEBHOOK_PRIVATE_RECEIVERS: private addresses an operator lets merchant webhooks reach in
 * production, each named exactly as `ip:port` (`[v6]:port` for IPv6): a gateway on the same
 * private network as a receiver of its own (an internal event bus, a test receiver). Nothing else
 * private becomes reachable: not another port of that address, not another address. Loopback and
 * the unspecified address are never accepted (they are the gateway's own machine).
 * Returns the normalised entries, or the first entry that is not acceptable.
 */
export function parsePrivateReceivers(raw: string): { ok: true; receivers: string[] } | { ok: false; entry: string } {
  const receivers: string[] = [];
  for (const entry of raw
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const match = /^\[?([0-9a-fA-F:.]+)\]?:(\d{1,5})$/.exec(entry);
    const port = match ? Number(match[2]) : 0;
    if (!match || !ipaddr.isValid(match[1]) || port < 1 || port > 65_535) return { ok: false, entry };
    const ip = ipaddr.process(match[1]);
    if (['loopback', 'unspecified'].includes(ip.range())) return { ok: false, entry };
    receivers.push(privateReceiverKey(ip.toString(), port));
  }
  return { ok: true, receivers };
}

/** The key of an address and port in a WEBHOOK_PRIVATE_RECEIVERS set (IPv4-mapped IPv6 as its IPv4). */
export function privateReceiverKey(address: string, port: number): string {
  const raw = address.replace(/^\[|\]$/g, '');
  const ip = ipaddr.isValid(raw) ? ipaddr.process(raw).toString() : raw;
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}
