import 'reflect-metadata';
import {
  ClientCapabilityError,
  Field,
  McpServer,
  Server,
  Tool,
  UrlElicitationRequiredError,
  type RequestContext,
  type Session,
} from '@mcpx/core';
import { IsBoolean, IsOptional, IsString } from 'class-validator';

/** The form elicit() shows: its rules become the restricted elicitation schema. */
export class Confirm {
  @Field({ title: 'Confirm', description: 'Really delete?' })
  @IsBoolean()
  confirm!: boolean;

  @Field({ title: 'Reason' })
  @IsOptional()
  @IsString()
  reason?: string;
}

@Server({ name: 'assistant', version: '1.0.0' })
export class AssistantServer extends McpServer {
  // Sampling: ask the client's model. Needs the client's `sampling` capability.
  @Tool({ description: 'Asks the model for a haiku' })
  async haiku(_input: void, ctx: RequestContext) {
    const reply = await ctx.sample(
      { messages: [{ role: 'user', content: { type: 'text', text: 'A haiku about the sea' } }], maxTokens: 60 },
      { timeoutMs: 30_000 },
    );
    const block = Array.isArray(reply.content) ? reply.content[0] : reply.content;
    return block?.type === 'text' ? block.text : '(no text)';
  }

  // Form elicitation: the answer comes back validated, as a Confirm instance.
  @Tool({ description: 'Deletes everything, after asking' })
  async delete_all(_input: void, ctx: RequestContext) {
    const answer = await ctx.elicit('Delete everything?', Confirm);
    if (answer.action !== 'accept' || !answer.content?.confirm) return `Not deleted (${answer.action})`;
    return `Deleted. Reason: ${answer.content.reason ?? 'none given'}`;
  }

  // URL elicitation: send the user to a page; say when it is done.
  @Tool({ description: 'Connects an account' })
  async connect_account(_input: void, ctx: RequestContext) {
    const answer = await ctx.elicitUrl({ message: 'Sign in to your account', url: 'https://example.com/oauth/start' });
    if (answer.action !== 'accept') return 'Not connected';
    // ...later, when the out-of-band flow finishes:
    ctx.completeElicitation(answer.elicitationId);
    return 'Connected';
  }

  // Or refuse the call until the user has visited a URL: a -32042 JSON-RPC error.
  @Tool({ description: 'Reads the calendar' })
  calendar(_input: void) {
    throw new UrlElicitationRequiredError([
      { mode: 'url', message: 'Authorize calendar access', url: 'https://example.com/oauth/calendar', elicitationId: 'cal-1' },
    ]);
  }

  // Roots: the client's filesystem roots. Needs the client's `roots` capability.
  @Tool({ description: 'Lists the client roots' })
  async roots(_input: void, ctx: RequestContext) {
    if (!ctx.clientCapabilities.roots) return 'This client shares no roots';
    try {
      const roots = await ctx.roots();
      return roots.map((root) => `${root.name ?? '-'} ${root.uri}`).join('\n') || '(none)';
    } catch (err) {
      if (err instanceof ClientCapabilityError) return err.message;
      throw err;
    }
  }

  override onRootsListChanged(session: Session): void {
    session.logger.info('roots changed');
  }
}
