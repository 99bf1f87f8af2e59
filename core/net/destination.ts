/**
 * Where the gateway may send merchant webhooks. Only http(s), no credentials in the URL, and —
 * outside development — never a private, loopback, link-local or otherwise internal address,
 * so a merchant cannot make us call into our own network (SSRF).
 */
import net from 'node:net';

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

const blockedHostnames = new Set(['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback', 'metadata.google.internal']);

export function isBlockedHostname(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return blockedHostnames.has(host) || host.endsWith('.localhost') || host.endsWith('.internal') || host.endsWith('.local');
}

/** True for any address a public webhook must not resolve to. */
export function isPrivateAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '');
  if (net.isIPv4(ip)) {
    const [a, b] = ip.split('.').map(Number);
    return (
      a === 0 || a === 10 || a === 127 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 192 && b === 0) ||
      (a === 198 && (b === 18 || b === 19)) || a >= 224
    );
  }
  if (net.isIPv6(ip)) {
    const lower = ip.toLowerCase();
    if (lower === '::' || lower === '::1') return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    if (mapped) return isPrivateAddress(mapped[1]);
    return /^(fc|fd|fe8|fe9|fea|feb|ff)/.test(lower);
  }
  return false;
}
