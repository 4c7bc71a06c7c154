import 'reflect-metadata';
import { Complete, Field, Prompt, Server, assistantMessage, userMessage } from '@mcpx/core';
import { IsIn, IsOptional, IsString } from 'class-validator';

/** Each property of the argument class is a prompt argument; optional ones are not required. */
export class ReviewArgs {
  @Field({ description: 'The language of the code' })
  @IsString()
  language!: string;

  @Field({ description: 'How strict to be' })
  @IsOptional()
  @IsIn(['gentle', 'strict'])
  tone?: string;
}

const LANGUAGES = ['go', 'javascript', 'python', 'rust', 'typescript'];

@Server({ name: 'prompts', version: '1.0.0' })
export class PromptServer {
  // A string becomes one user message.
  @Prompt({ description: 'Says hello' })
  hello() {
    return 'Say hello to the user.';
  }

  // Messages: userMessage() and assistantMessage() take a string or a content block.
  @Prompt({ title: 'Code review', description: 'Reviews code in a language' })
  review(args: ReviewArgs) {
    return [
      userMessage(`Review this ${args.language} code, ${args.tone ?? 'gentle'}ly.`),
      assistantMessage('Paste the code and I will review it.'),
    ];
  }

  // Arguments declared by hand, with no class: they arrive as strings.
  @Prompt({ description: 'Summarises a topic', arguments: [{ name: 'topic', description: 'What to summarise', required: true }] })
  summarise(args: { topic: string }) {
    return { description: `Summary of ${args.topic}`, messages: [userMessage(`Summarise ${args.topic} in three bullet points.`)] };
  }

  // completion/complete for the `language` argument of `review`.
  @Complete({ prompt: 'review', argument: 'language' })
  completeLanguage(value: string): string[] {
    return LANGUAGES.filter((l) => l.startsWith(value.toLowerCase()));
  }

  // Other arguments' resolved values arrive in context.arguments.
  @Complete({ prompt: 'review', argument: 'tone' })
  completeTone(value: string, context: { arguments: Record<string, string> }) {
    const tones = context.arguments.language === 'rust' ? ['strict'] : ['gentle', 'strict'];
    return { values: tones.filter((t) => t.startsWith(value)), total: tones.length, hasMore: false };
  }
}
