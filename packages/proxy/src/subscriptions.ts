import type { Client, McpSubscription } from '@modelcontextprotocol/client';
import type { Logger } from 'pino';

/** Upstream resources the gateway subscribes to at most, per upstream. */
export const MAX_SUBSCRIPTIONS = 1000;

export interface SubscriptionsOptions {
  logger: Logger;
  /** The upstream's key, for log lines. */
  key: string;
  /** The listen stream ended while the connection was meant to be up: the upstream is taken as down. */
  ended(reason: string): void;
}

/**
 * How the gateway hears of an upstream's changes on one connection. A 2025-11-25 upstream sends list
 * changes unasked and is subscribed to resources one by one (`resources/subscribe`). A 2026-07-28
 * upstream sends them only on a `subscriptions/listen` stream, whose filter names the resources: a
 * new resource opens a new stream with the wider filter before the old one is closed, so no change
 * falls between the two.
 */
export class UpstreamSubscriptions {
  private readonly uris = new Set<string>();
  private stream?: McpSubscription;
  /** A new stream being opened; `again`: the set changed meanwhile, open one more after it. */
  private opening?: Promise<void>;
  private again = false;
  private closed = false;

  constructor(
    private readonly client: Client,
    private readonly options: SubscriptionsOptions,
  ) {}

  private get modern(): boolean {
    return this.client.getProtocolEra() === 'modern';
  }

  private get canSubscribe(): boolean {
    return this.client.getServerCapabilities()?.resources?.subscribe === true;
  }

  /** Starts hearing the list changes the upstream offers (2026-07-28: opens the listen stream). */
  async open(): Promise<void> {
    if (this.modern) await this.relisten();
  }

  /** Hears of changes to these resources from now on (at most MAX_SUBSCRIPTIONS per connection). */
  async add(uris: Iterable<string>): Promise<void> {
    if (this.closed || !this.canSubscribe) return;
    const fresh: string[] = [];
    for (const uri of uris) {
      if (this.uris.has(uri) || this.uris.size >= MAX_SUBSCRIPTIONS) continue;
      this.uris.add(uri);
      fresh.push(uri);
    }
    if (fresh.length === 0) return;
    if (this.modern) {
      await this.relisten().catch((err: unknown) => this.options.logger.warn({ upstream: this.options.key, err }, 'cannot widen the subscriptions/listen stream of the upstream'));
      return;
    }
    for (const uri of fresh) {
      await this.client.subscribeResource({ uri }).catch((err: unknown) => {
        this.uris.delete(uri);
        this.options.logger.debug({ upstream: this.options.key, uri, err }, 'cannot subscribe upstream');
      });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const stream = this.stream;
    this.stream = undefined;
    await stream?.close().catch(() => undefined);
  }

  /** One stream at a time is opened; changes that arrive meanwhile are taken by the next. */
  private relisten(): Promise<void> {
    if (this.opening) {
      this.again = true;
      return this.opening;
    }
    this.opening = (async () => {
      try {
        do {
          this.again = false;
          await this.listenOnce();
        } while (this.again && !this.closed);
      } finally {
        this.opening = undefined;
      }
    })();
    return this.opening;
  }

  private async listenOnce(): Promise<void> {
    const caps = this.client.getServerCapabilities() ?? {};
    const filter = {
      ...(caps.tools?.listChanged ? { toolsListChanged: true } : {}),
      ...(caps.prompts?.listChanged ? { promptsListChanged: true } : {}),
      ...(caps.resources?.listChanged ? { resourcesListChanged: true } : {}),
      ...(this.uris.size > 0 ? { resourceSubscriptions: [...this.uris] } : {}),
    };
    if (Object.keys(filter).length === 0 || this.closed) return;
    const stream = await this.client.listen(filter);
    const previous = this.stream;
    this.stream = stream;
    void stream.closed.then((how) => {
      if (this.stream === stream && !this.closed && how !== 'local') this.options.ended(`its subscriptions/listen stream ended (${how})`);
    });
    if (this.closed) this.stream = undefined;
    await previous?.close().catch(() => undefined);
    if (this.closed) await stream.close().catch(() => undefined);
  }
}
