import 'reflect-metadata';
import { McpServer, Server } from '@mcpx/core';

const VERBS = ['create', 'list', 'get', 'update', 'delete', 'archive', 'export', 'import', 'search', 'sync'];
const NOUNS = ['invoice', 'customer', 'ticket', 'order', 'payment', 'report', 'user', 'project', 'task', 'document'];
const AREAS = ['billing', 'support', 'sales', 'crm', 'hr', 'ops', 'finance', 'legal', 'marketing', 'admin'];

/** The pinned tools of the generated catalog. */
export const PINNED = ['billing_get_invoice', 'support_list_ticket'];

/** A server of 1,000 generated tools (10 areas × 10 verbs × 10 nouns), each with a title, a sentence and two described parameters, behind tool search. */
@Server({ name: 'thousand-tools', version: '1.0.0', toolSearch: { threshold: 50, pinned: PINNED } })
export class ThousandTools extends McpServer {
  override onServerInit(): void {
    for (const area of AREAS) {
      for (const verb of VERBS) {
        for (const noun of NOUNS) {
          this.registry.addTool({
            name: `${area}_${verb}_${noun}`,
            title: `${verb} ${noun} (${area})`,
            description: `${verb[0]!.toUpperCase()}${verb.slice(1)}s a ${noun} in the ${area} system. Use it when the user asks to ${verb} ${noun}s for ${area}.`,
            inputSchema: {
              type: 'object',
              properties: {
                [`${noun}Id`]: { type: 'string', description: `The ${noun}'s identifier in ${area}` },
                note: { type: 'string', description: 'A free-text note kept with the change' },
              },
            },
            handler: () => `${verb} ${noun}`,
          });
        }
      }
    }
  }
}
