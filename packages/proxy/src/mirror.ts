import { ErrorCode, McpError, ToolError, type LoggingLevel, type Registry, type RequestContext } from '@mcpx/core';
import type { PromptSpec, ResourceSpec, TemplateSpec, ToolSpec } from '@mcpx/core/registry';
import { UriTemplate } from '@mcpx/core/schema';
import type { Client, Prompt, Resource, Tool } from '@modelcontextprotocol/client';
import type { Logger } from 'pino';
import type { UpstreamConfig } from './config';
import type { Downstream } from './downstream';
import { forwardedError, forwardedMeta, isTransportFailure, withoutReservedMeta } from './forward';
import { listPrompts, listResources, listTemplates, listTools } from './list-all';
import { callAsUpstreamTask } from './upstream-task';
import type { UpstreamSubscriptions } from './subscriptions';
import type { UpstreamListener } from './upstream';

type ResourceTemplate = Awaited<ReturnType<Client['listResourceTemplates']>>['resourceTemplates'][number];

type Kind = 'tools' | 'prompts' | 'resources';

export interface MirrorOptions {
  /** Where the entries go: a mounted server's registry (prefixed) or the gateway's own (no prefix). */
  registry: Registry;
  /** Tells the registry's clients that a resource changed (by the upstream's URI). */
  notifyUpdated(uri: string): void;
  logger: Logger;
  /** How long one forwarded request may take (progress resets it). */
  requestTimeoutMs: number;
  /** The client while the upstream is up; the reason it is not otherwise. */
  client(): Client | undefined;
  label: string;
  reason(): string;
  /** The calls in flight, through which the upstream's own requests reach a client. */
  downstream: Downstream;
  /** A request failed on the way there: the upstream is taken as down. */
  lost(reason: string): void;
}

const LOG_LEVELS = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

/** The log level asked of a 2026-07-28 upstream on each request (it logs nothing unasked); the caller's own level filters. */
const LOG_LEVEL_KEY = 'io.modelcontextprotocol/logLevel';

/**
 * One upstream's entries in a registry: listed when it comes up, listed again when it says a list
 * changed, removed while it is down. Each entry forwards to the upstream under its own name.
 */
export class Mirror implements UpstreamListener {
  /** The upstream's own names (tool and prompt names, resource URIs and templates) now in the registry. */
  private readonly present = { tools: new Map<string, string>(), prompts: new Map<string, string>(), resources: new Map<string, string>(), templates: new Map<string, string>() };
  /** The downstream requests whose progress an upstream request reports, by the token the gateway gave it. */
  private readonly progressRoutes = new Map<string, RequestContext>();
  private nextToken = 0;
  /** How the current connection hears of resource changes. */
  private subscriptions?: UpstreamSubscriptions;
  /** Serialises listings: a list_changed during a listing lists again after it. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly config: UpstreamConfig,
    private readonly options: MirrorOptions,
  ) {}

  /** The upstream's own names it served when it was last up (what a client may still ask for while it is down). */
  private last = { tool: new Set<string>(), prompt: new Set<string>(), resource: new Set<string>(), templates: [] as UriTemplate[] };

  /** Whether the upstream served this (by its own name or URI) when it was last up. */
  hadEntry(kind: 'tool' | 'prompt' | 'resource', key: string): boolean {
    if (this.last[kind].has(key)) return true;
    return kind === 'resource' && this.last.templates.some((t) => t.match(key) !== null);
  }

  async up(client: Client, subscriptions: UpstreamSubscriptions): Promise<void> {
    this.subscriptions = subscriptions;
    const caps = client.getServerCapabilities() ?? {};
    const kinds: Kind[] = [];
    if (caps.tools) kinds.push('tools');
    if (caps.prompts) kinds.push('prompts');
    if (caps.resources) kinds.push('resources');
    for (const kind of kinds) await this.sync(client, kind);
  }

  down(): void {
    this.last.tool = new Set(this.present.tools.keys());
    this.last.prompt = new Set(this.present.prompts.keys());
    this.last.resource = new Set(this.present.resources.keys());
    this.last.templates = [...this.present.templates.keys()].map((t) => UriTemplate.parse(t));
    const r = this.options.registry;
    for (const name of this.present.tools.keys()) r.tools.remove(name);
    for (const name of this.present.prompts.keys()) r.prompts.remove(name);
    for (const uri of this.present.resources.keys()) r.resources.remove(uri);
    for (const template of this.present.templates.keys()) r.templates.remove(template);
    for (const list of Object.values(this.present)) list.clear();
  }

  listChanged(kind: Kind): void {
    const client = this.options.client();
    if (!client) return;
    this.queue = this.queue
      .then(() => this.sync(client, kind))
      .catch((err: unknown) => this.options.logger.warn({ upstream: this.config.key, err }, `cannot list the ${kind} of upstream ${this.options.label}`));
  }

  resourceUpdated(uri: string): void {
    if (this.present.resources.has(uri) || [...this.present.templates.keys()].some((t) => UriTemplate.parse(t).match(uri))) this.options.notifyUpdated(uri);
  }

  progress(params: { progressToken: string | number; progress: number; total?: number; message?: string }): void {
    this.progressRoutes.get(String(params.progressToken))?.progress(params.progress, params.total, params.message);
  }

  /**
   * An upstream's log line: to the client of the calls in flight on it (at that client's level)
   * when they are all one client's, and to the gateway's log at debug either way.
   */
  log(params: { level: string; logger?: string; data?: unknown }): void {
    this.options.logger.debug({ upstream: this.config.key, level: params.level, logger: params.logger, data: params.data }, 'upstream log');
    const ctx = this.options.downstream.soleCaller();
    if (typeof ctx === 'string' || !LOG_LEVELS.has(params.level)) return;
    const text = typeof params.data === 'string' ? params.data : JSON.stringify(params.data ?? null);
    ctx.log.child(params.logger ?? this.config.key).forward(params.level as LoggingLevel, text);
  }

  private async sync(client: Client, kind: Kind): Promise<void> {
    const r = this.options.registry;
    if (kind === 'tools') {
      this.replace('tools', await listTools(client), { key: (t) => t.name, add: (t) => r.addTool(this.toolSpec(t), { replace: true }) });
    } else if (kind === 'prompts') {
      this.replace('prompts', await listPrompts(client), { key: (p) => p.name, add: (p) => r.addPrompt(this.promptSpec(p, client), { replace: true }) });
    } else {
      this.replace('resources', await listResources(client), { key: (x) => x.uri, add: (x) => r.addResource(this.resourceSpec(x), { replace: true }) });
      await this.subscriptions?.add(this.present.resources.keys());
      const templates = await listTemplates(client);
      this.replace('templates', templates, { key: (t) => t.uriTemplate, add: (t) => r.addResourceTemplate(this.templateSpec(t, client), { replace: true }) });
    }
  }

  /**
   * Makes the registry hold exactly `items` of one kind: new or changed ones added, gone ones
   * removed. One the registry refuses (a name it cannot serve, a schema that does not compile) is
   * left out with a warning: one bad entry does not take its upstream's others down.
   */
  private replace<T>(kind: keyof Mirror['present'], items: readonly T[], { key: keyOf, add }: { key: (item: T) => string; add: (item: T) => void }): void {
    const present = this.present[kind];
    const r = this.options.registry;
    const list = kind === 'tools' ? r.tools : kind === 'prompts' ? r.prompts : kind === 'resources' ? r.resources : r.templates;
    const seen = new Set<string>();
    for (const item of items) {
      const key = keyOf(item);
      if (typeof key !== 'string' || seen.has(key)) continue;
      seen.add(key);
      const fingerprint = JSON.stringify(item);
      if (present.get(key) === fingerprint) continue;
      // A name the server already serves (its own entry, another upstream's) is never replaced.
      if (!present.has(key) && list.has(key)) {
        this.leftOut(kind, key, 'the server already has an entry of that name (give this upstream a prefix)');
        continue;
      }
      try {
        add(item);
        present.set(key, fingerprint);
      } catch (err) {
        present.delete(key);
        list.remove(key);
        this.leftOut(kind, key, (err as Error).message);
      }
    }
    for (const key of [...present.keys()]) {
      if (seen.has(key)) continue;
      list.remove(key);
      present.delete(key);
    }
  }

  private leftOut(kind: string, key: string, reason: string): void {
    this.options.logger.warn({ upstream: this.config.key, [kind]: key, reason }, `left out ${kind.slice(0, -1)} "${key}" of upstream ${this.options.label}: ${reason}`);
  }

  private scopes(name: string): string[] | undefined {
    const s = this.config.scopes;
    const own = Object.prototype.hasOwnProperty.call(s, name) ? s[name] : Object.prototype.hasOwnProperty.call(s, '*') ? s['*'] : undefined;
    return own ? [...own] : undefined;
  }

  /** The upstream's client; when it is down, a tool error for a tool, a JSON-RPC error for a prompt or a read (they have no tool error). */
  private connected(kind: 'tool' | 'other'): Client {
    const client = this.options.client();
    if (client) return client;
    const told = `The upstream server ${this.options.label} is unavailable (${this.options.reason()}); try again shortly`;
    throw kind === 'tool' ? new ToolError(told) : new McpError(ErrorCode.InternalError, told);
  }

  private toolSpec(tool: Tool): ToolSpec {
    const name = tool.name;
    // A tool the upstream runs as a task may run as one here too: its downstream task follows the upstream's.
    const taskSupport = tool.execution?.taskSupport;
    const upstreamTask = taskSupport === 'required';
    return {
      name,
      title: tool.title,
      description: tool.description,
      icons: tool.icons as ToolSpec['icons'],
      annotations: tool.annotations,
      _meta: tool._meta,
      inputSchema: tool.inputSchema as ToolSpec['inputSchema'],
      ...(tool.outputSchema ? { outputSchema: tool.outputSchema as ToolSpec['outputSchema'] } : {}),
      scopes: this.scopes(name),
      tags: [this.config.key],
      ...(taskSupport === 'optional' || taskSupport === 'required' ? { taskSupport } : {}),
      source: `upstream ${this.options.label} tool "${name}"`,
      handler: async (args: Record<string, unknown>, ctx: RequestContext) => {
        const client = this.connected('tool');
        try {
          return await this.forward(ctx, (meta, options) =>
            upstreamTask && client.getProtocolEra() !== 'modern'
              ? callAsUpstreamTask(client, { name, arguments: args, ...meta }, options)
              : client.callTool({ name, arguments: args, ...meta }, options),
          );
        } catch (err) {
          throw forwardedError(err, this.options.label, 'tool');
        }
      },
    };
  }

  private promptSpec(prompt: Prompt, client: Client): PromptSpec {
    const name = prompt.name;
    return {
      name,
      title: prompt.title,
      description: prompt.description,
      icons: prompt.icons as PromptSpec['icons'],
      _meta: prompt._meta,
      arguments: prompt.arguments?.map((a) => ({ ...a })),
      scopes: this.scopes(name),
      tags: [this.config.key],
      source: `upstream ${this.options.label} prompt "${name}"`,
      ...(client.getServerCapabilities()?.completions && prompt.arguments?.length
        ? { complete: Object.fromEntries(prompt.arguments.map((a) => [a.name, this.completer({ type: 'ref/prompt', name }, a.name)])) }
        : {}),
      handler: async (args: Record<string, string>, ctx: RequestContext) => {
        try {
          const client = this.connected('other');
          return await this.forward(ctx, (meta, options) => client.getPrompt({ name, arguments: args, ...meta }, options));
        } catch (err) {
          throw forwardedError(err, this.options.label, 'other');
        }
      },
    };
  }

  private resourceSpec(resource: Resource): ResourceSpec {
    const uri = resource.uri;
    return {
      ...pick(resource, RESOURCE_FIELDS),
      uri,
      name: resource.name,
      scopes: this.scopes(uri),
      tags: [this.config.key],
      source: `upstream ${this.options.label} resource "${uri}"`,
      handler: (ctx: RequestContext) => this.read(uri, ctx),
    } as ResourceSpec;
  }

  private templateSpec(template: ResourceTemplate, client: Client): TemplateSpec {
    const parsed = UriTemplate.parse(template.uriTemplate);
    return {
      ...pick(template, RESOURCE_FIELDS),
      uriTemplate: template.uriTemplate,
      name: template.name,
      scopes: this.scopes(template.uriTemplate),
      tags: [this.config.key],
      source: `upstream ${this.options.label} resource template "${template.uriTemplate}"`,
      ...(client.getServerCapabilities()?.completions
        ? { complete: Object.fromEntries(parsed.variableNames.map((v) => [v, this.completer({ type: 'ref/resource', uri: template.uriTemplate }, v)])) }
        : {}),
      handler: (variables: Record<string, string | string[]>, ctx: RequestContext) => this.read(parsed.expand(variables), ctx, true),
    } as TemplateSpec;
  }

  private async read(uri: string, ctx: RequestContext, throughTemplate = false): Promise<unknown> {
    try {
      const client = this.connected('other');
      const contents = await this.forward(ctx, (meta, options) => client.readResource({ uri, ...meta }, { ...options, cacheMode: 'bypass' }));
      // A client subscribes to what it has read: the upstream is subscribed to it from the first read.
      if (throughTemplate) void this.subscriptions?.add([uri]);
      return contents;
    } catch (err) {
      throw forwardedError(err, this.options.label, 'other');
    }
  }

  private completer(ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string }, argument: string) {
    return async (value: string, context: { arguments: Record<string, string> }) => {
      const client = this.options.client();
      if (!client) return [];
      const answer = await client.complete({ ref, argument: { name: argument, value }, ...(Object.keys(context.arguments).length ? { context: { arguments: context.arguments } } : {}) });
      return answer.completion;
    };
  }

  /**
   * Sends one request upstream for `ctx`: its `_meta` passed on (with a progress token of the
   * gateway's when the client asked for progress), its cancellation too, as one of the calls in
   * flight through which the upstream may ask the client.
   */
  private async forward<T>(ctx: RequestContext, send: (meta: { _meta?: Record<string, unknown> }, options: { signal: AbortSignal; timeout: number }) => Promise<T>): Promise<T> {
    let meta = forwardedMeta(ctx.meta);
    if (this.options.client()?.getProtocolEra() === 'modern') meta = { ...meta, [LOG_LEVEL_KEY]: 'debug' };
    let token: string | undefined;
    if (ctx.progressToken !== undefined) {
      token = `gateway-${++this.nextToken}`;
      this.progressRoutes.set(token, ctx);
      meta = { ...meta, progressToken: token };
    }
    try {
      const result = await this.options.downstream.during(ctx, (signal) => send(meta ? { _meta: meta } : {}, { signal, timeout: this.options.requestTimeoutMs }));
      return withoutReservedMeta(result);
    } catch (err) {
      if (isTransportFailure(err, ctx)) this.options.lost(`a request failed on the way: ${(err as Error).message.split('\n')[0]!.slice(0, 200)}`);
      throw err;
    } finally {
      if (token) this.progressRoutes.delete(token);
    }
  }
}

/** What a resource or template listing says of an entry that the gateway lists in turn (nothing else it may carry). */
const RESOURCE_FIELDS = ['title', 'description', 'mimeType', 'size', 'annotations', 'icons', '_meta'] as const;

function pick<T extends object>(from: T, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const value = (from as Record<string, unknown>)[field];
    if (value !== undefined) out[field] = value;
  }
  return out;
}
