/**
 * Sends one webhook request, enforcing the destination policy where it cannot be dodged: at
 * connect time. The URL was checked when it was registered, but DNS may answer differently now
 * (rebinding, TTL 0) and a row could have been written around the API. So the connection itself
 * resolves the name, refuses if ANY answer is private, and connects to the address it checked —
 * no second lookup happens between the check and the connect. The Host header and TLS SNI stay
 * the merchant's hostname. Redirects are never followed (a redirect could point anywhere).
 *
 * A private receiver (WEBHOOK_PRIVATE_RECEIVERS) is reached only for the merchants its entry names,
 * through connections of its own: a request first goes through the connections that reach public
 * addresses only, and only when those refuse, and the merchant is named by some entry, through
 * connections that also reach that merchant's receivers. So a pooled connection is never shared
 * by merchants allowed different receivers, and the caller knows which answers came from a private
 * receiver (their bodies are not shown to merchants: activities/events/attemptDelivery.ts).
 */
import dns from 'node:dns/promises';
import net from 'node:net';
import { Agent, buildConnector, fetch } from 'undici';
import {
  isBlockedHostname,
  isPrivateAddress,
  privateReceiverKey,
  privateReceiversOf,
  type PrivateReceiver,
} from '../../core/net/destination';

export type Lookup = (host: string) => Promise<{ address: string; family?: number }[]>;

export interface SenderPolicy {
  /** Development and tests only: local receivers. Production refuses to start with it (config). */
  allowPrivate: boolean;
  /** WEBHOOK_PRIVATE_RECEIVERS: private `ip:port`s allowed all the same, each to the merchants it names, in production too. */
  privateReceivers?: readonly PrivateReceiver[];
  lookup?: Lookup;
}

/** What one connection may reach: public addresses (all of them in development), and these private receivers. */
interface ConnectPolicy {
  allowPrivate: boolean;
  receivers: ReadonlySet<string>;
  lookup?: Lookup;
}

/** The destination is internal (or resolves to an internal address): nothing was sent. */
export class DestinationRefusedError extends Error {
  readonly code = 'DESTINATION_NOT_ALLOWED';
  constructor() {
    super('destination not allowed: it is or resolves to a private, loopback or internal address');
    this.name = 'DestinationRefusedError';
  }
}

const defaultLookup: Lookup = (host) => dns.lookup(host, { all: true, verbatim: true });

/** The one address to connect to, or a refusal. */
async function safeAddress(hostname: string, port: number, policy: ConnectPolicy): Promise<string> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const refused = (address: string) =>
    !policy.allowPrivate && isPrivateAddress(address) && !policy.receivers.has(privateReceiverKey(address, port));
  if (net.isIP(host)) {
    if (refused(host)) throw new DestinationRefusedError();
    return host;
  }
  if (!policy.allowPrivate && isBlockedHostname(host)) throw new DestinationRefusedError();
  const answers = await (policy.lookup ?? defaultLookup)(host);
  if (answers.length === 0) throw Object.assign(new Error(`${host} does not resolve`), { code: 'ENOTFOUND' });
  if (answers.some((a) => refused(a.address))) throw new DestinationRefusedError();
  return answers[0].address;
}

const agents = new Map<string, Agent>();

/**
 * One keep-alive agent per policy, its connections shared by the merchants allowed the same
 * receivers (the one of public addresses only by all); its connector checks every new connection.
 */
function agentFor(policy: ConnectPolicy): Agent {
  const cacheKey = policy.lookup ? '' : `${policy.allowPrivate} ${[...policy.receivers].sort().join(',')}`;
  const cached = cacheKey ? agents.get(cacheKey) : undefined;
  if (cached) return cached;
  const connect = buildConnector({});
  const agent = new Agent({
    connect: (opts, callback) => {
      const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
      safeAddress(opts.hostname, port, policy).then(
        (address) => connect({ ...opts, hostname: address }, callback),
        (err: Error) => callback(err, null),
      );
    },
  });
  if (cacheKey) agents.set(cacheKey, agent);
  return agent;
}

export interface WebhookRequest {
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

/**
 * POSTs merchant `merchantId`'s webhook to its URL. Throws DestinationRefusedError when the policy
 * refuses the connection. `privateReceiver`: the answer came through a connection allowed to reach
 * one of the merchant's private receivers (it may also have reached a public address the name
 * resolved to beside it).
 */
export async function postWebhook(
  url: string,
  merchantId: string,
  req: WebhookRequest,
  policy: SenderPolicy,
): Promise<{ response: Response; privateReceiver: boolean }> {
  const receivers = privateReceiversOf(policy.privateReceivers, merchantId);
  const publicOnly = { allowPrivate: policy.allowPrivate, receivers: new Set<string>(), lookup: policy.lookup };
  try {
    return { response: await send(url, req, publicOnly), privateReceiver: false };
  } catch (err) {
    // Refused before anything was sent: try the merchant's own receivers, if any.
    if (!(err instanceof DestinationRefusedError) || receivers.size === 0) throw err;
  }
  return { response: await send(url, req, { ...publicOnly, receivers }), privateReceiver: true };
}

async function send(url: string, req: WebhookRequest, policy: ConnectPolicy): Promise<Response> {
  const dispatcher = agentFor(policy);
  try {
    return await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: req.headers,
      body: req.body,
      signal: AbortSignal.timeout(req.timeoutMs),
      dispatcher,
    });
  } catch (err) {
    const cause = (err as { cause?: unknown }).cause;
    if (cause instanceof DestinationRefusedError) throw cause;
    throw err;
  } finally {
    if (policy.lookup) void dispatcher.close();
  }
}
