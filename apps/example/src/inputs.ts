import { Field } from '@mcpx/core';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, Min, ValidateNested } from 'class-validator';

/** Tool and prompt inputs: class-validator rules are both the JSON Schema and the validation. */

export class CreateNoteInput {
  @Field({ description: 'A short title' })
  @IsString()
  @Length(1, 120)
  title!: string;

  @Field({ description: 'The note text, in Markdown' })
  @IsString()
  @Length(0, 100_000)
  body!: string;

  @Field({ description: 'Lower-case tags', default: [] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  @Matches(/^[a-z0-9-]+$/, { each: true })
  tags?: string[];
}

export class SearchInput {
  @Field({ description: 'Text to look for in titles and bodies' })
  @IsString()
  @Length(1, 200)
  query!: string;

  @Field({ description: 'Only notes with this tag' })
  @IsOptional()
  @IsString()
  tag?: string;

  @Field({ description: 'How many notes to return at most', default: 10 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}

export class NoteIdInput {
  @Field({ description: 'The note id, as listed by search' })
  @IsString()
  @Matches(/^[0-9]+$/)
  id!: string;
}

/** Inherits the id rule and adds the line: input classes compose by subclassing. */
export class AppendInput extends NoteIdInput {
  @Field({ description: 'The line to add' })
  @IsString()
  @Length(1, 10_000)
  line!: string;
}

export class ExportInput {
  @Field({ description: 'Output format' })
  @IsIn(['markdown', 'json'])
  format!: 'markdown' | 'json';

  @Field({ description: 'Milliseconds to spend per note (simulates slow work)', default: 50 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10_000)
  delayMs?: number;
}

export class NoteSummary {
  @Field({ description: 'The note id' })
  @IsString()
  id!: string;

  @Field({ description: 'The note title' })
  @IsString()
  title!: string;

  @IsArray()
  @IsString({ each: true })
  tags!: string[];
}

/** The search tool's output class: listed as outputSchema, returned as structuredContent. */
export class SearchResult {
  @Field({ description: 'Matching notes, best first' })
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => NoteSummary)
  notes!: NoteSummary[];

  @Field({ description: 'How many notes matched before the limit' })
  @IsInt()
  @Min(0)
  total!: number;
}

export class SummarizeArgs {
  @Field({ description: 'Id of the note to summarise' })
  @IsString()
  noteId!: string;

  @Field({ description: 'Summary style: brief or detailed' })
  @IsOptional()
  @IsIn(['brief', 'detailed'])
  style?: string;
}

/** The form delete asks the user to fill in (elicitation): the class's rules become the form's schema. */
export class DeleteConfirmation {
  @Field({ title: 'Delete', description: 'Yes, delete this note for good' })
  @IsBoolean()
  confirm!: boolean;
}
