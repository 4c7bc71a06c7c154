import 'reflect-metadata';
import { McpServer, Server, Tool, type Caller } from '@mcpx/core';

/**
 * The catalog the tool search tests serve (over HTTP and stdio): five tools behind `toolSearch`
 * (threshold 3, `help` pinned), one of them shown only to a client calling itself "finance-app".
 */

export const financeOnly = (caller: Caller) => caller.clientInfo?.name === 'finance-app';

@Server({ name: 'search-fixture', version: '1.0.0', toolSearch: { threshold: 3, pinned: ['help'] } })
export class SearchCatalog extends McpServer {
  @Tool({ description: 'How to use this server' })
  help() {
    return 'search first';
  }

  @Tool({ description: 'Creates an invoice for a customer', inputSchema: { type: 'object', properties: { customer: { type: 'string', description: 'Who to bill' } } } })
  createInvoice(input: { customer?: string }) {
    return `invoice for ${input.customer ?? 'nobody'}`;
  }

  @Tool({ description: 'Lists open support tickets' })
  listTickets() {
    return 'tickets';
  }

  @Tool({ description: 'Sends an email message' })
  sendEmail() {
    return 'sent';
  }

  @Tool({ description: 'Refunds an invoice payment', visible: financeOnly })
  refundInvoice() {
    return 'refunded';
  }
}
