import 'reflect-metadata';
import { McpServer, Server, Tool } from '@mcpx/core';
import { loadOpenApi, openApiTools } from '@mcpx/openapi';

/** A support desk: one tool of its own, and the invoice operations of the billing API, prefixed. */
@Server({ name: 'support-desk', version: '1.0.0' })
export class SupportDesk extends McpServer {
  constructor(private readonly billingApi: object) {
    super();
  }

  @Tool({ description: 'Says which tools answer a question about an invoice' })
  triage(): string {
    return 'Look the invoice up with billing_getInvoice, then explain its lines.';
  }

  override onServerInit(): void {
    const tools = openApiTools(this.billingApi, {
      baseUrl: process.env.BILLING_URL ?? 'http://127.0.0.1:8080/v1',
      // Read at each call: a rotated token is used as soon as the environment has it.
      headers: () => ({ authorization: `Bearer ${process.env.BILLING_TOKEN ?? ''}` }),
      includeTags: ['invoices'],
      namePrefix: 'billing_',
    });
    for (const tool of tools) this.registry.addTool(tool);
  }
}

export async function supportDesk(): Promise<SupportDesk> {
  return new SupportDesk(await loadOpenApi('./billing-openapi.yaml'));
}
