import 'reflect-metadata';
import { McpServer, Resource, Server, Tool, UseMiddleware, type Middleware } from '@mcpx/core';

const audit: Middleware = async (ctx, next) => {
  ctx.log.info('billing call', { tool: ctx.toolName });
  return next();
};

/** A domain's server, written and tested on its own. */
@Server({ name: 'billing', version: '1.0.0' })
@UseMiddleware(audit)
export class Billing {
  @Tool({ description: 'Finds an invoice by its number', scopes: ['billing:read'] })
  findInvoice(input: { number: string }): string {
    return `invoice ${input.number}`;
  }

  @Resource({ uri: 'invoices://latest' })
  latest(): string {
    return 'INV-7';
  }
}

@Server({ name: 'support', version: '1.0.0' })
export class Support {
  @Tool({ description: 'Opens a ticket' })
  openTicket(): string {
    return 'ticket opened';
  }
}

/**
 * One endpoint for both: `billing_findInvoice`, `support_openTicket`, and `invoices://billing/latest`.
 * Billing's scopes and middleware still apply to its entries.
 */
@Server({ name: 'company', version: '1.0.0', mount: { billing: Billing, support: Support } })
export class Company extends McpServer {
  @Tool({ description: 'Says which namespace handles what' })
  help(): string {
    return 'billing_* for invoices, support_* for tickets';
  }
}
