import 'reflect-metadata';
import { McpServer, Server, Tool } from '@mcpx/core';
import { addUpstreams, parseProxyConfig, type Gateway } from '@mcpx/proxy';

/** A team server: its own tools, and two servers run by others in front of which it puts its auth and limits. */
@Server({ name: 'team', version: '1.0.0' })
export class TeamGateway extends McpServer {
  gateway!: Gateway;

  constructor(private readonly upstreams: Record<string, unknown>) {
    super();
  }

  @Tool({ description: 'Who is on call this week' })
  on_call(): string {
    return 'Ada (until Friday), then Grace';
  }

  override onServerInit(): void {
    // The `mcpServers` of a Claude Desktop file: `${NAME}` is read from the environment here.
    this.gateway = addUpstreams(this, parseProxyConfig(this.upstreams));
  }
}

export const upstreams = {
  mcpServers: {
    docs: { command: 'node', args: ['./servers/docs.js'] },
    tickets: {
      url: 'https://tickets.example.com/mcp',
      headers: { Authorization: 'Bearer ${TICKETS_TOKEN}' },
      scopes: { close_ticket: ['tickets:write'] },
    },
  },
};
