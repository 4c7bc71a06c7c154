/**
 * The server the telemetry tests trace over every transport: a tool that works, tools that fail
 * each way the conventions tell apart, a resource, a prompt, a tool that asks the user, a task
 * held at a gate, and tools that start spans of their own. Not a test file itself.
 */
import 'reflect-metadata';
import { IsBoolean, IsOptional, IsString } from 'class-validator';
import type { Tracer } from '@opentelemetry/api';
import { ErrorCode, Field, McpError, Prompt, Resource, Server, Tool, toolError, type RequestContext } from '../src';

export class GreetInput {
  @Field({ description: 'Who to greet' })
  @IsString()
  name!: string;
}

export class GateInput {
  @Field({ description: 'The gate to wait at' })
  @IsString()
  gate!: string;

  @Field({ description: 'Throw once past the gate' })
  @IsOptional()
  @IsBoolean()
  fail?: boolean;
}

export class TopicArgs {
  @Field({ description: 'What to summarise' })
  @IsString()
  topic!: string;
}

export class Confirmation {
  @Field({ title: 'Confirm' })
  @IsBoolean()
  confirm!: boolean;

  @Field({ title: 'Reason' })
  @IsOptional()
  @IsString()
  reason?: string;
}

export const NOTE_URI = 'notes://today';

@Server({ name: 'traced', version: '1.2.3' })
export class Traced {
  /** The tracer the tools that start their own spans use (the test's tracer provider). */
  tracer?: Tracer;
  private readonly gates = new Map<string, { opened: Promise<void>; open: () => void }>();
  /** Gates something is waiting at. */
  readonly waiting = new Set<string>();

  @Tool({ description: 'Greets, and logs that it did' })
  greet(input: GreetInput, ctx: RequestContext) {
    ctx.log.info('greeting', { who: input.name });
    return `hello ${input.name}`;
  }

  @Tool({ description: 'Reports a failure in its result (isError)' })
  refuse() {
    return toolError('not today');
  }

  @Tool({ description: 'Throws a protocol error' })
  strict(): string {
    throw new McpError(ErrorCode.InvalidParams, 'strict says no');
  }

  @Tool({ description: 'Throws an unexpected error' })
  crash(): string {
    throw new Error('boom');
  }

  @Tool({ description: 'Asks the user to confirm' })
  async confirm(_input: void, ctx: RequestContext) {
    const answer = await ctx.elicit('Sure?', Confirmation);
    return `action=${answer.action}`;
  }

  @Tool({ description: 'Waits at a gate; may run as a task', taskSupport: 'optional' })
  async wait(input: GateInput, ctx: RequestContext) {
    await this.at(input.gate, ctx.signal);
    ctx.log.info('passed', { gate: input.gate });
    if (input.fail) throw new Error(`failed past ${input.gate}`);
    return `passed ${input.gate}`;
  }

  @Tool({ description: 'Answers at once with the span it runs under; may run as a task', taskSupport: 'optional' })
  whichSpan(_input: void, ctx: RequestContext) {
    return `${ctx.span.spanContext().spanId} recording=${ctx.span.isRecording()}`;
  }

  @Tool({ description: 'Starts a span under ctx.traceContext, and sets an attribute on ctx.span' })
  nested(_input: void, ctx: RequestContext) {
    ctx.span.setAttribute('app.note', 'set by the tool');
    this.tracer!.startActiveSpan('app.explicit', {}, ctx.traceContext, (span) => span.end());
    return 'nested';
  }

  @Tool({ description: 'Starts a span with no parent given: the active context is the request span' })
  async ambient() {
    await Promise.resolve();
    await this.tracer!.startActiveSpan('app.ambient', async (span) => {
      await new Promise((resolve) => setImmediate(resolve));
      span.end();
    });
    return 'ambient';
  }

  @Tool({ description: 'Says whether its span records' })
  recording(_input: void, ctx: RequestContext) {
    return `recording=${ctx.span.isRecording()} valid=${ctx.span.spanContext().traceId !== '00000000000000000000000000000000'}`;
  }

  @Resource({ uri: NOTE_URI, description: "Today's note", mimeType: 'text/plain' })
  note() {
    return 'buy milk';
  }

  @Prompt({ description: 'Summarises a topic' })
  summarize(args: TopicArgs) {
    return `Summarise ${args.topic}`;
  }

  /** Lets everything waiting at `name` go on (and what arrives there later). */
  open(name: string): void {
    this.gate(name).open();
  }

  private gate(name: string) {
    let gate = this.gates.get(name);
    if (!gate) {
      let open!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      this.gates.set(name, (gate = { opened, open }));
    }
    return gate;
  }

  private async at(name: string, signal: AbortSignal): Promise<void> {
    this.waiting.add(name);
    try {
      await Promise.race([this.gate(name).opened, new Promise<void>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }))]);
    } finally {
      this.waiting.delete(name);
    }
  }
}
