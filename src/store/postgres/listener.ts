/**
 * One LISTEN connection per store, outside the pool, on channel `weft`. Payloads are
 * `s:<stream>` (a stream may have work) and `j:<job id>` (a job finished); each becomes a
 * wake-up of this store's subscribers. Notices this store's own pool sent are skipped
 * (they were already published in-process right after the commit). When the connection
 * drops, it reconnects with backoff and then wakes every subscriber, since notices sent
 * meanwhile were lost.
 */
import pg from 'pg';
import type { NoticeHub } from '../notices.js';
import { clientConfig, type PostgresUrl } from './connection.js';

/** The channel every weft notice is sent on. */
export const CHANNEL = 'weft';

/** The hub key of a notice payload, or undefined for a payload weft did not send. */
export function payloadKey(payload: string | undefined): string | undefined {
  if (payload?.startsWith('s:')) return `stream:${payload.slice(2)}`;
  if (payload?.startsWith('j:')) return `job:${payload.slice(2)}`;
  return undefined;
}

/** The LISTEN connection of one store. */
export class NoticeListener {
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: PostgresUrl,
    private readonly hub: NoticeHub,
    /** Backend process ids of this store's own pool (their notices are already published). */
    private readonly ownPids: ReadonlySet<number>,
  ) {}

  /** Resolves once LISTEN is active (connecting on first use). */
  ready(): Promise<void> {
    if (this.client) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client(clientConfig(this.url));
    client.on('notification', (message) => {
      if (this.ownPids.has(message.processId)) return;
      const key = payloadKey(message.payload);
      if (key) this.hub.publish([key]);
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      client.removeAllListeners('end');
      await client.end().catch(() => {});
      throw error;
    }
    if (this.stopped) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
  }

  /** The connection went away: reconnect with backoff, then wake everyone. */
  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    client.removeAllListeners('end');
    client.end().catch(() => {});
    this.retry(100);
  }

  private retry(delayMs: number): void {
    if (this.stopped || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.stopped || this.client || this.hub.size === 0) return;
      this.ready().then(
        () => this.hub.wakeAll(),
        () => this.retry(Math.min(delayMs * 2, 5_000)),
      );
    }, delayMs);
    this.retryTimer.unref();
  }

  /** Closes the connection until the next {@link ready} (nobody listens any more). */
  async idle(): Promise<void> {
    await this.connecting?.catch(() => {});
    const client = this.client;
    this.client = undefined;
    if (client) {
      client.removeAllListeners('end');
      await client.end().catch(() => {});
    }
  }

  /** Closes the connection for good. */
  async close(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.idle();
  }
}
