/**
 * Which merchant a connection's notification URL speaks for: the connection must be ACTIVE and
 * :secret its webhook path secret (sealed in its row's envelope, opened with the credentials
 * keyring). The answer is null for anything else (unknown or malformed id, revoked, wrong secret),
 * so the route answers every one of them alike.
 *
 * An opened secret is kept in memory as its SHA-256 digest, not as text, for CACHE_MS (60 s), so a
 * notification costs neither a query nor a decryption: a PSP sends many. The price is that a
 * connection revoked in the database is still accepted by a process that read it within the last
 * minute; after that the row is read again and the revoked connection answers 404 like an unknown
 * one (docs/operations.md, "PSP connections"). Unknown, revoked or unopenable rows are not cached:
 * they are read each time, and the route's wrong-secret brake bounds how often.
 */
import type { Logger } from 'pino';
import type { Sequelize } from 'sequelize';
import { openEnvelope, type MasterKeyring } from '../../../core/crypto/envelope';
import { pspConnectionStore } from '../../../db/connections';
import type { MerchantScope } from '../../../db/charges';
import { sameSecret, secretDigest } from '../../charges/pixApiCallbacks/intake';

export const CACHE_MS = 60_000;
/** Above this many cached connections, expired entries are dropped before a new one is added. */
const CACHE_SWEEP_SIZE = 1000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Cached {
  merchantId: string;
  digest: Buffer;
  expiresAt: number;
}

export class ConnectionNotificationService {
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly deps: {
      sequelize: Sequelize;
      keyring: MasterKeyring;
      logger: Logger;
      cacheMs?: number;
      now?: () => number;
    },
  ) {}

  /** The connection's merchant when `secret` is its path secret and it is active; null otherwise. */
  async scopeOf(connectionId: string, secret: string): Promise<MerchantScope | null> {
    if (!UUID.test(connectionId)) return null;
    const known = await this.known(connectionId.toLowerCase());
    if (!known || !sameSecret(secret, known.digest)) return null;
    return { merchantId: known.merchantId };
  }

  private async known(id: string): Promise<Cached | null> {
    const now = (this.deps.now ?? Date.now)();
    const cached = this.cache.get(id);
    if (cached && cached.expiresAt > now) return cached;
    this.cache.delete(id);
    const row = await pspConnectionStore.findConnectionById(this.deps.sequelize, id);
    if (row?.status !== 'ACTIVE') return null;
    let digest: Buffer;
    try {
      digest = secretDigest(openEnvelope(row.webhook_path_secret_envelope, this.deps.keyring));
    } catch (err) {
      // A row sealed under a master key this process lacks: the operator must see it; its
      // notifications are refused like a wrong secret's meanwhile (and the PSP retries them).
      this.deps.logger.error(
        { connectionId: id, merchantId: row.merchant_id, err: (err as Error).message },
        "a connection's webhook path secret cannot be opened; its notifications are refused",
      );
      return null;
    }
    if (this.cache.size >= CACHE_SWEEP_SIZE)
      for (const [key, entry] of this.cache) if (entry.expiresAt <= now) this.cache.delete(key);
    const entry = { merchantId: row.merchant_id, digest, expiresAt: now + (this.deps.cacheMs ?? CACHE_MS) };
    this.cache.set(id, entry);
    return entry;
  }
}
