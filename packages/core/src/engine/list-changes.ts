import type { ServerCapabilities } from '../protocol/types';
import type { EntryList, ListKind } from '../registry/entry-list';
import type { Registry } from '../registry/registry';
import type { Session } from '../eras/legacy/session';
import type { ListenSubscriptions } from '../eras/modern/subscriptions';
import type { ClusterLink } from './cluster-link';

const LIST_CHANGED: Record<ListKind, { method: string; capability: 'tools' | 'resources' | 'prompts' }> = {
  tools: { method: 'notifications/tools/list_changed', capability: 'tools' },
  resources: { method: 'notifications/resources/list_changed', capability: 'resources' },
  resourceTemplates: { method: 'notifications/resources/list_changed', capability: 'resources' },
  prompts: { method: 'notifications/prompts/list_changed', capability: 'prompts' },
};

/** What list_changed needs of the engine. */
export interface ListChangeHost {
  readonly registry: Registry;
  readonly subscriptions: ListenSubscriptions;
  readonly cluster?: ClusterLink;
  capabilities(): ServerCapabilities;
  sessions(): Iterable<Session>;
}

/**
 * list_changed, coalesced: a burst of changes in one turn of the event loop is one notification
 * per list, sent after the burst.
 *
 * In a cluster, every instance whose registry changed alike raises the same change: it is sent
 * once, under a claim on the list's new contents (so a later, different change is never taken
 * for it). A visibility change is one instance's news (`notifyVisibilityChanged()`), always sent.
 */
export class ListChanges {
  /** Each list changed in this turn, and whether visibility (not the registry) changed it. */
  private pending = new Map<ListKind, boolean>();

  constructor(private readonly host: ListChangeHost) {}

  raise(kind: ListKind, visibility: boolean): void {
    const scheduled = this.pending.size > 0;
    this.pending.set(kind, visibility || (this.pending.get(kind) ?? false));
    if (!scheduled) queueMicrotask(() => this.flush());
  }

  private flush(): void {
    const kinds = this.pending;
    this.pending = new Map();
    // resources and resourceTemplates share one notification.
    const byMethod = new Map<string, { capability: 'tools' | 'resources' | 'prompts'; visibility: boolean; kinds: ListKind[] }>();
    for (const [kind, visibility] of kinds) {
      const { method, capability } = LIST_CHANGED[kind];
      const entry = byMethod.get(method) ?? { capability, visibility: false, kinds: [] };
      entry.visibility ||= visibility;
      entry.kinds.push(kind);
      byMethod.set(method, entry);
    }
    const { cluster, subscriptions } = this.host;
    for (const [method, { capability, visibility, kinds: changed }] of byMethod) {
      if (cluster) {
        // Sessions on every instance were offered what this one offers now.
        if (this.host.capabilities()[capability]?.listChanged) cluster.listChanged(method, visibility ? undefined : changed.map((k) => this.listOf(k).fingerprint()).join('.'));
        else subscriptions.listChanged(method);
        continue;
      }
      subscriptions.listChanged(method);
      for (const session of this.host.sessions()) {
        if (session.initialized && session.serverCapabilities[capability]?.listChanged) session.notify(method);
      }
    }
  }

  private listOf(kind: ListKind): EntryList<unknown> {
    const registry = this.host.registry;
    switch (kind) {
      case 'tools':
        return registry.tools;
      case 'resources':
        return registry.resources;
      case 'resourceTemplates':
        return registry.templates;
      case 'prompts':
        return registry.prompts;
    }
  }
}
