import type { Logger } from 'pino';
import type { JsonRpcNotification, RequestId } from '../../protocol/jsonrpc';
import type { MessageChannel } from '../../context/channel';
import { META } from './meta';

/** What a `subscriptions/listen` stream delivers (2026-07-28 SubscriptionFilter); every field is opt-in. */
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

/** How a subscription ended: `server` (shutdown: it gets its graceful response) or `client` (cancelled, or its stream closed: no response). */
export type SubscriptionEnd = 'server' | 'client';

/** The filter field that opts a stream in to each list_changed notification (a Map: the method may come from another instance, over the cluster bus). */
const LIST_CHANGED_FIELD: ReadonlyMap<string, 'toolsListChanged' | 'promptsListChanged' | 'resourcesListChanged'> = new Map([
  ['notifications/tools/list_changed', 'toolsListChanged'],
  ['notifications/prompts/list_changed', 'promptsListChanged'],
  ['notifications/resources/list_changed', 'resourcesListChanged'],
] as const);

/** One open `subscriptions/listen` stream: its request id (the subscription id), what it honours, and where it writes. */
class ListenSubscription {
  readonly ended: Promise<SubscriptionEnd>;
  private finish!: (how: SubscriptionEnd) => void;
  /** False once the subscription ended: nothing more is delivered. */
  live = true;

  constructor(
    readonly id: RequestId,
    readonly filter: SubscriptionFilter,
    private readonly channel: MessageChannel,
    /** The request's abort signal: what ties the subscription to the transport's request. */
    readonly signal: AbortSignal,
    private readonly onEnd: (subscription: ListenSubscription) => void,
  ) {
    this.ended = new Promise((resolve) => (this.finish = resolve));
  }

  /** Writes one notification tagged with the subscription id; a stream that closed under us ends the subscription instead. */
  deliver(method: string, params: Record<string, unknown> = {}): void {
    if (!this.live) return;
    if (this.channel.open === false) {
      this.end('client');
      return;
    }
    const meta = params._meta as Record<string, unknown> | undefined;
    const message: JsonRpcNotification = { jsonrpc: '2.0', method, params: { ...params, _meta: { ...meta, [META.subscriptionId]: this.id } } };
    this.channel.send(message);
  }

  end(how: SubscriptionEnd): void {
    if (!this.live) return;
    this.live = false;
    this.onEnd(this);
    this.finish(how);
  }
}

/**
 * The engine's open `subscriptions/listen` streams (protocol 2026-07-28), whatever transport
 * carries them. Registry changes and resource updates fan out to the streams that opted in; each
 * stream holds its request open until the client cancels it or the server ends it.
 */
export class ListenSubscriptions {
  /** Open streams by their request's abort signal, which is what a transport knows its requests by. */
  private readonly bySignal = new Map<AbortSignal, ListenSubscription>();
  /** Subscribed streams by resource URI, so an update reaches its subscribers without scanning every stream. */
  private readonly byUri = new Map<string, Set<ListenSubscription>>();

  constructor(private readonly logger: Logger) {}

  /** How many streams are open. */
  get size(): number {
    return this.bySignal.size;
  }

  /**
   * Opens a stream: acknowledges `filter` (the subset honoured) on `channel` as its first message,
   * then delivers what it opted in to until `signal` aborts (resolves `client`) or the server ends it
   * (resolves `server`). A filter that honours nothing has nothing to wait for: it ends at once.
   */
  open(id: RequestId, filter: SubscriptionFilter, channel: MessageChannel, signal: AbortSignal): Promise<SubscriptionEnd> {
    if (signal.aborted) return Promise.resolve('client');
    const subscription = new ListenSubscription(id, filter, channel, signal, (ended) => this.forget(ended));
    // Nothing is registered before the acknowledgment is written, so nothing can precede it.
    subscription.deliver('notifications/subscriptions/acknowledged', { notifications: filter });
    if (!subscription.live) return subscription.ended;
    if (!honoursAnything(filter)) return Promise.resolve('server');
    this.bySignal.set(signal, subscription);
    for (const uri of filter.resourceSubscriptions ?? []) {
      let subscribers = this.byUri.get(uri);
      if (!subscribers) this.byUri.set(uri, (subscribers = new Set()));
      subscribers.add(subscription);
    }
    const onAbort = () => subscription.end('client');
    signal.addEventListener('abort', onAbort, { once: true });
    void subscription.ended.then(() => signal.removeEventListener('abort', onAbort));
    return subscription.ended;
  }

  /** A list changed (`notifications/tools/list_changed`, ...): told to every stream that opted in to that list. */
  listChanged(method: string): void {
    const field = LIST_CHANGED_FIELD.get(method);
    if (!field) return;
    for (const subscription of [...this.bySignal.values()]) {
      if (subscription.filter[field]) this.safely(subscription, () => subscription.deliver(method));
    }
  }

  /** A resource changed: `notifications/resources/updated` to every stream subscribed to its URI. */
  resourceUpdated(uri: string): void {
    const subscribers = this.byUri.get(uri);
    if (!subscribers) return;
    for (const subscription of [...subscribers]) this.safely(subscription, () => subscription.deliver('notifications/resources/updated', { uri }));
  }

  /** Ends every stream on the server's initiative (shutdown): each gets its graceful response, then its stream ends. */
  closeAll(): void {
    for (const subscription of [...this.bySignal.values()]) subscription.end('server');
  }

  /**
   * Ends, gracefully, the subscription opened by the request with this abort signal, if it is one:
   * how a transport shutting down ends the subscriptions on its own streams (a server may serve
   * several transports from one engine).
   */
  closeRequest(signal: AbortSignal): void {
    this.bySignal.get(signal)?.end('server');
  }

  private forget(subscription: ListenSubscription): void {
    this.bySignal.delete(subscription.signal);
    for (const uri of subscription.filter.resourceSubscriptions ?? []) {
      const subscribers = this.byUri.get(uri);
      subscribers?.delete(subscription);
      if (subscribers?.size === 0) this.byUri.delete(uri);
    }
  }

  // A stream that cannot be written to is ended, and the others still get the notification.
  private safely(subscription: ListenSubscription, send: () => void): void {
    try {
      send();
    } catch (err) {
      this.logger.warn({ err, subscriptionId: subscription.id }, 'subscriptions/listen stream could not be written to; ending it');
      subscription.end('client');
    }
  }
}

function honoursAnything(filter: SubscriptionFilter): boolean {
  return Boolean(filter.toolsListChanged || filter.promptsListChanged || filter.resourcesListChanged || filter.resourceSubscriptions?.length);
}
