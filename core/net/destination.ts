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

/** One WEBHOOK_PRIVATE_RECEIVERS entry: a private `ip:port` and the merchants whose webhooks may reach it. */
export interface PrivateReceiver {
  /** `ip:port`, `[v6]:port` for IPv6, normalised (privateReceiverKey). */
  receiver: string;
  /** Lower-case merchant ids, at least one. */
  merchantIds: string[];
}

/**
 * Cloud metadata services a receiver entry may never name: those outside link-local (which is
 * refused whole) — AWS's IPv6 IMDS, Google's IPv6 metadata server, Alibaba Cloud's, Oracle's.
 */
const metadataAddresses = new Set(['fd00:ec2::254', 'fd20:ce::254', '100.100.100.200', '192.0.0.192']);

const refusedRanges: Record<string, string> = {
  loopback: 'loopback (the gateway itself)',
  unspecified: 'the unspecified address (the gateway itself)',
  linkLocal: 'link-local (cloud metadata lives there)',
  multicast: 'multicast',
  broadcast: 'broadcast',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Why `address` (a valid IP) cannot be a private receiver, or null when it can. */
function receiverAddressProblem(address: string): string | null {
  const ip = ipaddr.process(address); // ::ffff:a.b.c.d is judged as a.b.c.d
  if (
    ip.kind() === 'ipv6' &&
    (embeddedIPv4(ip as ipaddr.IPv6) || ['rfc6052', 'rfc6145', '6to4', 'teredo'].includes(ip.range()))
  )
    return 'embeds an IPv4 address (IPv4-compatible, NAT64, 6to4, Teredo): name the IPv4 address itself';
  const refused = refusedRanges[ip.range()];
  if (refused) return `is ${refused}: never a receiver`;
  if (metadataAddresses.has(ip.toString())) return 'is a cloud metadata address: never a receiver';
  if (!isPrivateAddress(ip.toString())) return 'is a public address: public receivers need no entry';
  return null;
}

/**
 * WEBHOOK_PRIVATE_RECEIVERS: private addresses an operator lets given merchants' webhooks reach in
 * production — a receiver of the operator's own beside the gateway (an internal event bus, a test
 * receiver) — written `ip:port=merchantId|merchantId,…` (`[v6]:port=…` for IPv6). Each entry
 * names the merchants who may use it; an entry naming none is refused (nothing is open to every
 * merchant). Nothing else private becomes reachable: not another port of that address, not another
 * address, not for another merchant. Loopback, the unspecified address, link-local, multicast,
 * broadcast, cloud metadata addresses and IPv6 forms embedding an IPv4 address are refused.
 * Returns the entries (one receiver written twice: its merchants together), or the first entry
 * that is not acceptable and why.
 */
export function parsePrivateReceivers(
  raw: string,
): { ok: true; receivers: PrivateReceiver[] } | { ok: false; entry: string; problem: string } {
  const byReceiver = new Map<string, Set<string>>();
  for (const entry of raw
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const refuse = (problem: string) => ({ ok: false as const, entry, problem });
    const cut = entry.includes('=') ? entry.indexOf('=') : entry.length;
    const [target, merchants] = [entry.slice(0, cut).trim(), entry.slice(cut + 1)];
    // IPv6 only in brackets, IPv4 never: `fd12::1:443` could be either address with either port.
    const match = /^(?:\[([0-9a-fA-F:.]+)\]|([0-9.]+)):(\d{1,5})$/.exec(target);
    // IPv6 read as a URL's host is (the URL parser writes `::127.0.0.1` as `::7f00:1`, ipaddr.js as mapped).
    const address = match ? (match[1] ? whatwgIPv6(match[1]) : match[2]) : '';
    const port = match ? Number(match[3]) : 0;
    const valid = match && (match[1] ? ipaddr.IPv6.isValid(address) : ipaddr.IPv4.isValidFourPartDecimal(address));
    if (!valid || port < 1 || port > 65_535)
      return refuse('is not `ip:port=merchantId|merchantId` (IPv6 in brackets: `[fd12::1]:443=…`)');
    const problem = receiverAddressProblem(address);
    if (problem) return refuse(problem);
    const merchantIds = merchants
      .split('|')
      .map((m) => m.trim().toLowerCase())
      .filter(Boolean);
    if (merchantIds.length === 0)
      return refuse('names no merchant: write `ip:port=merchantId|merchantId`, the merchants who may use it');
    const bad = merchantIds.find((m) => !UUID.test(m));
    if (bad !== undefined) return refuse(`has "${bad}", which is not a merchant id (a UUID)`);
    const key = privateReceiverKey(address, port);
    const allowed = byReceiver.get(key) ?? new Set<string>();
    for (const m of merchantIds) allowed.add(m);
    byReceiver.set(key, allowed);
  }
  return {
    ok: true,
    receivers: [...byReceiver].map(([receiver, merchantIds]) => ({ receiver, merchantIds: [...merchantIds] })),
  };
}

/** An IPv6 address as the URL parser writes it, or '' when it is none. */
function whatwgIPv6(raw: string): string {
  try {
    return new URL(`http://[${raw}]/`).hostname.slice(1, -1);
  } catch {
    return '';
  }
}

/** The private receivers (privateReceiverKey form) whose entries name `merchantId`. */
export function privateReceiversOf(receivers: readonly PrivateReceiver[] | undefined, merchantId: string): Set<string> {
  const id = merchantId.toLowerCase();
  return new Set((receivers ?? []).filter((r) => r.merchantIds.includes(id)).map((r) => r.receiver));
}

/** The key of an address and port in a WEBHOOK_PRIVATE_RECEIVERS set (IPv4-mapped IPv6 as its IPv4). */
export function privateReceiverKey(address: string, port: number): string {
  const raw = address.replace(/^\[|\]$/g, '');
  const ip = ipaddr.isValid(raw) ? ipaddr.process(raw).toString() : raw;
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}
