import 'reflect-metadata';
import { ArrayMaxSize, ArrayMinSize, IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString } from 'class-validator';
import {
  Complete,
  Field,
  InputRequired,
  McpServer,
  Prompt,
  Resource,
  ResourceTemplate,
  Server,
  Tool,
  audio,
  embeddedResource,
  image,
  text,
  toolError,
  userMessage,
  type RequestContext,
} from '@mcpx/core';
import { type CreateMessageResult, type ElicitResult } from '@mcpx/core/protocol';
import { toElicitationSchema, validateElicitedContent } from '@mcpx/core/schema';
import { PNG_1X1, WAV_SILENCE } from './media';

/** Inputs and forms, as class-validator classes. */

export class SamplingInput {
  @Field({ description: 'The prompt to send to the client model' })
  @IsString()
  prompt!: string;
}

export class ElicitationInput {
  @Field({ description: 'The message to show the user' })
  @IsString()
  message!: string;
}

export class UserDetails {
  @Field({ description: "User's response" })
  @IsString()
  username!: string;

  @Field({ description: "User's email address" })
  @IsString()
  email!: string;
}

/** SEP-1034: a default on every primitive type. */
export class DefaultsForm {
  @Field({ description: 'Full name', default: 'John Doe' })
  @IsOptional()
  @IsString()
  name?: string;

  @Field({ description: 'Age in years', default: 30 })
  @IsOptional()
  @IsInt()
  age?: number;

  @Field({ description: 'A score', default: 95.5 })
  @IsOptional()
  @IsNumber()
  score?: number;

  @Field({ description: 'Account status', default: 'active' })
  @IsOptional()
  @IsIn(['active', 'inactive', 'pending'])
  status?: string;

  @Field({ description: 'Whether the account is verified', default: true })
  @IsOptional()
  @IsBoolean()
  verified?: boolean;
}

/** SEP-1330: every enum form a form may use. */
export class EnumsForm {
  @Field({ description: 'A single choice, no titles' })
  @IsOptional()
  @IsIn(['option1', 'option2', 'option3'])
  untitledSingle?: string;

  @Field({ description: 'A single choice with titles', enumTitles: { value1: 'First Option', value2: 'Second Option', value3: 'Third Option' } })
  @IsOptional()
  @IsIn(['value1', 'value2', 'value3'])
  titledSingle?: string;

  @Field({ description: 'A single choice with legacy names', schema: { enumNames: ['Option One', 'Option Two', 'Option Three'] } })
  @IsOptional()
  @IsIn(['opt1', 'opt2', 'opt3'])
  legacyEnum?: string;

  @Field({ description: 'Several choices, no titles' })
  @IsOptional()
  @IsIn(['option1', 'option2', 'option3'], { each: true })
  @ArrayMinSize(1)
  @ArrayMaxSize(3)
  untitledMulti?: string[];

  @Field({ description: 'Several choices with titles', enumTitles: { value1: 'First Choice', value2: 'Second Choice', value3: 'Third Choice' } })
  @IsOptional()
  @IsIn(['value1', 'value2', 'value3'], { each: true })
  @ArrayMinSize(1)
  @ArrayMaxSize(3)
  titledMulti?: string[];
}

export class PromptArgs {
  @Field({ description: 'First argument' })
  @IsString()
  arg1!: string;

  @Field({ description: 'Second argument' })
  @IsString()
  arg2!: string;
}

export class EmbeddedResourceArgs {
  @Field({ description: 'URI of the resource to embed' })
  @IsString()
  resourceUri!: string;
}

export class NameForm {
  @Field({ description: 'Your name' })
  @IsString()
  name!: string;
}

export class ColorForm {
  @Field({ description: 'Your favourite colour' })
  @IsString()
  color!: string;
}

export class ConfirmForm {
  @Field({ description: 'Whether to go ahead' })
  @IsBoolean()
  ok!: boolean;
}

export class ContextForm {
  @Field({ description: 'What the prompt should be about' })
  @IsString()
  context!: string;
}

/** SEP-2243: an argument the client mirrors into the `Mcp-Param-Region` header. */
export class RegionInput {
  @Field({ description: 'The region the request is routed to', header: 'Region' })
  @IsString()
  region!: string;
}

/**
 * The suite's JSON Schema 2020-12 input, keyword for keyword: `$schema`, `$defs` with an `$anchor`,
 * `additionalProperties: false` (SEP-1613), and composition (`allOf` holding an `anyOf`) and
 * conditional (`if`/`then`/`else`) keywords (SEP-2106). Served unchanged in both eras.
 */
export const JSON_SCHEMA_2020_12_INPUT = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

/** The text of a sampling answer (its first text block). */
function sampledText(reply: CreateMessageResult): string {
  const content = Array.isArray(reply.content) ? reply.content[0] : reply.content;
  return content?.type === 'text' ? content.text : JSON.stringify(content);
}

/** The accepted answer to a form elicitation, validated against its class; undefined when it is missing or does not match. */
async function acceptedForm<T extends object>(form: new () => T, answer: unknown): Promise<T | undefined> {
  const result = answer as ElicitResult<Record<string, unknown>> | undefined;
  if (result?.action !== 'accept') return undefined;
  const checked = await validateElicitedContent(form, result.content ?? {});
  return checked.ok ? checked.value : undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Every fixture the official conformance suite calls, scenario by scenario: 0.1.16, and 0.2.0 at
 * 2025-11-25 and at 2026-07-28. The same handlers serve both protocol eras.
 */
@Server({ name: 'mcpx-conformance', version: '0.1.0', description: 'The MCP conformance fixtures, served by mcpx' })
export class ConformanceServer extends McpServer {
  @Tool({ name: 'test_simple_text', description: 'Returns a simple text response' })
  simpleText() {
    return 'This is a simple text response for testing.';
  }

  @Tool({ name: 'test_image_content', description: 'Returns an image' })
  imageContent() {
    return image(PNG_1X1, 'image/png');
  }

  @Tool({ name: 'test_audio_content', description: 'Returns audio' })
  audioContent() {
    return audio(WAV_SILENCE, 'audio/wav');
  }

  @Tool({ name: 'test_embedded_resource', description: 'Returns an embedded resource' })
  embeddedResource() {
    return embeddedResource('test://embedded-resource', 'This is an embedded resource content.', { mimeType: 'text/plain' });
  }

  @Tool({ name: 'test_multiple_content_types', description: 'Returns text, an image and a resource' })
  multipleContentTypes() {
    return [
      text('Multiple content types test:'),
      image(PNG_1X1, 'image/png'),
      embeddedResource('test://mixed-content-resource', JSON.stringify({ test: 'data', value: 123 }), { mimeType: 'application/json' }),
    ];
  }

  @Tool({ name: 'test_tool_with_logging', description: 'Sends three log messages while it runs' })
  async toolWithLogging(_input: void, ctx: RequestContext) {
    ctx.log.info('Tool execution started');
    await sleep(50);
    ctx.log.info('Tool processing data');
    await sleep(50);
    ctx.log.info('Tool execution completed');
    return 'Tool with logging executed successfully';
  }

  @Tool({ name: 'test_tool_with_progress', description: 'Reports progress three times before it returns' })
  async toolWithProgress(_input: void, ctx: RequestContext) {
    ctx.progress(0, 100, 'Starting');
    await sleep(50);
    ctx.progress(50, 100, 'Halfway');
    await sleep(50);
    ctx.progress(100, 100, 'Done');
    return String(ctx.progressToken ?? 'no progress token');
  }

  @Tool({ name: 'test_error_handling', description: 'Always returns a tool error' })
  errorHandling() {
    return toolError('This tool intentionally returns an error for testing');
  }

  @Tool({ name: 'test_sampling', description: 'Asks the client model to answer a prompt' })
  async sampling(input: SamplingInput, ctx: RequestContext) {
    const reply = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: input.prompt } }], maxTokens: 100 });
    const content = Array.isArray(reply.content) ? reply.content[0] : reply.content;
    return `LLM response: ${content?.type === 'text' ? content.text : JSON.stringify(content)}`;
  }

  @Tool({ name: 'test_elicitation', description: 'Asks the user for a username and an email address' })
  async elicitation(input: ElicitationInput, ctx: RequestContext) {
    const answer = await ctx.elicit(input.message, UserDetails);
    return `User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
  }

  @Tool({ name: 'test_elicitation_sep1034_defaults', description: 'Elicits a form with a default on every field' })
  async elicitationDefaults(_input: void, ctx: RequestContext) {
    const answer = await ctx.elicit('Please review your details', DefaultsForm);
    return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
  }

  @Tool({ name: 'test_elicitation_sep1330_enums', description: 'Elicits a form with every enum form' })
  async elicitationEnums(_input: void, ctx: RequestContext) {
    const answer = await ctx.elicit('Please make your choices', EnumsForm);
    return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
  }

  @Tool({ name: 'test_reconnection', description: 'Closes its SSE connection midway; the client resumes to get the result' })
  async reconnection(_input: void, ctx: RequestContext) {
    await sleep(50);
    ctx.closeStream(100);
    await sleep(300);
    return 'Reconnection test completed successfully: the result arrived after the client resumed the stream.';
  }

  @Tool({
    name: 'json_schema_2020_12_tool',
    description: 'Takes its input as a hand-written JSON Schema 2020-12',
    inputSchema: JSON_SCHEMA_2020_12_INPUT,
  })
  jsonSchemaTool(input: { name?: string; address?: { street?: string; city?: string }; contactMethod?: string; phone?: string; email?: string }) {
    return `Received: ${JSON.stringify(input)}`;
  }

  // 2026-07-28 (server-stateless, SEP-2575): the diagnostic tools the suite probes the server with.

  @Tool({ name: 'test_missing_capability', description: "Needs the client's sampling capability: without it the request fails with -32021" })
  async missingCapability(_input: void, ctx: RequestContext) {
    const reply = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }], maxTokens: 20 });
    return `The model said: ${sampledText(reply)}`;
  }

  @Tool({ name: 'test_streaming_elicitation', description: 'Asks the user to confirm; 2026-07-28 clients get the question back as an input request, never on the stream' })
  async streamingElicitation(_input: void, ctx: RequestContext) {
    const answer = await ctx.elicit('Shall the tool go ahead?', ConfirmForm);
    return `Elicitation completed: action=${answer.action}, ok=${answer.content?.ok ?? 'none'}`;
  }

  @Tool({ name: 'test_logging_tool', description: 'Logs three lines; the client gets them only at the log level it asked for' })
  loggingTool(_input: void, ctx: RequestContext) {
    ctx.log.info('Logging tool started');
    ctx.log.info('Logging tool working');
    ctx.log.info('Logging tool finished');
    return 'Logged three lines';
  }

  @Tool({ name: 'test_trigger_tool_change', description: 'Changes the tool list (a new revision of test_dynamic_tool), so clients hear tools/list_changed' })
  triggerToolChange() {
    this.addDynamicTool(++this.toolRevision);
    return `test_dynamic_tool is now at revision ${this.toolRevision}`;
  }

  @Tool({ name: 'test_trigger_prompt_change', description: 'Changes the prompt list (a new revision of test_dynamic_prompt), so clients hear prompts/list_changed' })
  triggerPromptChange() {
    this.addDynamicPrompt(++this.promptRevision);
    return `test_dynamic_prompt is now at revision ${this.promptRevision}`;
  }

  // 2026-07-28 (http-custom-header-server-validation, SEP-2243): a string argument mirrored into a header.

  @Tool({ name: 'test_custom_headers', description: 'Echoes its region, which clients also send as the Mcp-Param-Region header' })
  customHeaders(input: RegionInput) {
    return `Region: ${input.region}`;
  }

  // 2026-07-28 (input-required-result-*, SEP-2322): multi round-trip requests. The tools asking
  // with ctx.elicit/ctx.sample/ctx.roots run again on each retry and find the answers so far;
  // those needing their own input keys or state throw InputRequired (the lower-level form).

  @Tool({ name: 'test_input_required_result_elicitation', description: "Asks the user's name under the input key user_name, then greets them" })
  async inputRequiredElicitation(_input: void, ctx: RequestContext) {
    // The answer counts once the question was asked: the framework hands over only answers the round's requestState asked for.
    const answer = await acceptedForm(NameForm, ctx.inputResponses?.user_name);
    if (!answer) {
      // Missing, declined, or not a name: ask (again).
      throw new InputRequired({
        inputRequests: { user_name: { method: 'elicitation/create', params: { mode: 'form', message: 'What is your name?', requestedSchema: toElicitationSchema(NameForm) } } },
      });
    }
    return `Hello, ${answer.name}!`;
  }

  @Tool({ name: 'test_input_required_result_sampling', description: "Asks the client's model a question, then returns its answer" })
  async inputRequiredSampling(_input: void, ctx: RequestContext) {
    const reply = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 });
    return `The model answered: ${sampledText(reply)}`;
  }

  @Tool({ name: 'test_input_required_result_list_roots', description: 'Asks the client for its roots, then lists them' })
  async inputRequiredListRoots(_input: void, ctx: RequestContext) {
    const roots = await ctx.roots();
    return `The client has ${roots.length} root(s): ${roots.map((root) => (root.name ? `${root.uri} (${root.name})` : root.uri)).join(', ')}`;
  }

  @Tool({ name: 'test_input_required_result_request_state', description: 'Asks for a confirmation and keeps its own state between rounds; says state-ok when the state came back intact' })
  async inputRequiredRequestState(_input: void, ctx: RequestContext) {
    const state = ctx.requestState as { step?: string } | undefined;
    const answer = await acceptedForm(ConfirmForm, ctx.inputResponses?.confirm);
    // Only an answer to the question this tool asked (its state says so) completes the call.
    if (state?.step !== 'confirm' || !answer) {
      throw new InputRequired({
        inputRequests: { confirm: { method: 'elicitation/create', params: { mode: 'form', message: 'Please confirm', requestedSchema: toElicitationSchema(ConfirmForm) } } },
        state: { step: 'confirm' },
      });
    }
    return `state-ok: the request state came back, and the user ${answer.ok ? 'confirmed' : 'did not confirm'}`;
  }

  @Tool({ name: 'test_input_required_result_multiple_inputs', description: 'Asks for a name, a greeting from the model and the roots, all in one round' })
  async inputRequiredMultipleInputs(_input: void, ctx: RequestContext) {
    const [name, greeting, roots] = await Promise.all([
      ctx.elicit('What is your name?', NameForm),
      ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 }),
      ctx.roots(),
    ]);
    return `${sampledText(greeting)} ${name.content?.name ?? 'stranger'}, with ${roots.length} root(s)`;
  }

  @Tool({ name: 'test_input_required_result_multi_round', description: 'Asks for a name, then in a second round for a favourite colour' })
  async inputRequiredMultiRound(_input: void, ctx: RequestContext) {
    const name = await ctx.elicit('Step 1: What is your name?', NameForm);
    const color = await ctx.elicit('Step 2: What is your favorite color?', ColorForm);
    return `${name.content?.name ?? 'Someone'}'s favourite colour is ${color.content?.color ?? 'unknown'}`;
  }

  @Tool({ name: 'test_input_required_result_tampered_state', description: 'Asks for a confirmation; a requestState altered by the client is refused' })
  async inputRequiredTamperedState(_input: void, ctx: RequestContext) {
    const answer = await ctx.elicit('Please confirm', ConfirmForm);
    return `Confirmed: ${answer.content?.ok ?? false}`;
  }

  @Tool({ name: 'test_input_required_result_capabilities', description: 'Asks the client only what its declared capabilities allow (elicitation, sampling, roots)' })
  async inputRequiredCapabilities(_input: void, ctx: RequestContext) {
    const { elicitation, sampling, roots } = ctx.clientCapabilities;
    const answers = await Promise.all([
      elicitation ? ctx.elicit('What is your name?', NameForm).then((a) => `name: ${a.content?.name ?? a.action}`) : undefined,
      sampling ? ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }], maxTokens: 20 }).then((r) => `model: ${sampledText(r)}`) : undefined,
      roots ? ctx.roots().then((r) => `roots: ${r.length}`) : undefined,
    ]);
    const got = answers.filter((a) => a !== undefined);
    return got.length > 0 ? got.join('; ') : 'The client declared none of elicitation, sampling and roots, so nothing was asked';
  }

  @Resource({ uri: 'test://static-text', name: 'static-text', description: 'A static text resource', mimeType: 'text/plain' })
  staticText() {
    return 'This is the content of the static text resource.';
  }

  @Resource({ uri: 'test://static-binary', name: 'static-binary', description: 'A static binary resource (PNG)', mimeType: 'image/png' })
  staticBinary() {
    return Buffer.from(PNG_1X1, 'base64');
  }

  @Resource({ uri: 'test://watched-resource', name: 'watched-resource', description: 'A resource to subscribe to', mimeType: 'text/plain' })
  watched() {
    return 'Watched resource content';
  }

  @ResourceTemplate({ uriTemplate: 'test://template/{id}/data', name: 'template', description: 'Data for an id', mimeType: 'application/json' })
  template({ id }: { id: string }) {
    return JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` });
  }

  @Prompt({ name: 'test_simple_prompt', description: 'A prompt without arguments' })
  simplePrompt() {
    return 'This is a simple prompt for testing.';
  }

  @Prompt({ name: 'test_prompt_with_arguments', description: 'A prompt with two required arguments' })
  promptWithArguments(args: PromptArgs) {
    return `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`;
  }

  @Complete({ prompt: 'test_prompt_with_arguments', argument: 'arg1' })
  completeArg1(value: string): string[] {
    return ['paris', 'park', 'parrot'].filter((v) => v.startsWith(value));
  }

  @Prompt({ name: 'test_prompt_with_embedded_resource', description: 'A prompt that embeds a resource' })
  promptWithEmbeddedResource(args: EmbeddedResourceArgs) {
    return [
      userMessage(embeddedResource(args.resourceUri, 'Embedded resource content for testing.', { mimeType: 'text/plain' })),
      userMessage('Please process the embedded resource above.'),
    ];
  }

  @Prompt({ name: 'test_prompt_with_image', description: 'A prompt with an image' })
  promptWithImage() {
    return [userMessage(image(PNG_1X1, 'image/png')), userMessage('Please analyze the image above.')];
  }

  @Prompt({ name: 'test_input_required_result_prompt', description: 'Asks the user for the context the prompt is about, then builds it' })
  async inputRequiredPrompt(_args: void, ctx: RequestContext) {
    const answer = await ctx.elicit('What context should the prompt use?', ContextForm);
    return `Please help with this context: ${answer.content?.context ?? 'none given'}`;
  }

  // The entries the trigger tools change at runtime: each trigger registers a new revision in place.
  private toolRevision = 0;
  private promptRevision = 0;

  override onServerInit(): void {
    this.addDynamicTool(this.toolRevision);
    this.addDynamicPrompt(this.promptRevision);
  }

  private addDynamicTool(revision: number): void {
    const description = `A tool the server changes at runtime (revision ${revision})`;
    this.registry.addTool({ name: 'test_dynamic_tool', description, handler: () => description }, { replace: true });
  }

  private addDynamicPrompt(revision: number): void {
    const description = `A prompt the server changes at runtime (revision ${revision})`;
    this.registry.addPrompt({ name: 'test_dynamic_prompt', description, handler: () => description }, { replace: true });
  }
}
