import 'reflect-metadata';
import { McpServer, Server, Tool } from '@mcpx/core';

/** Entries added, removed, enabled or disabled at runtime; every session hears list_changed. */
@Server({ name: 'plugins', version: '1.0.0' })
export class PluginServer extends McpServer {
  override onServerInit(): void {
    this.registry.addResource({ name: 'motd', uri: 'plugins://motd', mimeType: 'text/plain', handler: () => 'Message of the day' });
    this.registry.addTool({
      name: 'beta_feature',
      description: 'Only while the beta is on',
      inputSchema: { type: 'object', properties: {} },
      handler: () => 'beta!',
    });
    this.registry.tools.disable('beta_feature');
  }

  @Tool({ description: 'Turns the beta tool on or off' })
  toggle_beta(_input: void) {
    if (!this.registry.tools.has('beta_feature')) return 'no beta tool';
    if (this.registry.tools.isEnabled('beta_feature')) this.registry.tools.disable('beta_feature');
    else this.registry.tools.enable('beta_feature');
    return `beta ${this.registry.tools.isEnabled('beta_feature') ? 'on' : 'off'}`;
  }
}
