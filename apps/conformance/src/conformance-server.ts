import 'reflect-metadata';
import { ArrayMaxSize, ArrayMinSize, IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString } from 'class-validator';
import {
  Complete,
  Field,
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every fixture the official conformance suite (0.1.16) calls, scenario by scenario. */
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
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    },
  })
  jsonSchemaTool(input: { name?: string; address?: { street?: string; city?: string } }) {
    return `Received: ${JSON.stringify(input)}`;
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
}
