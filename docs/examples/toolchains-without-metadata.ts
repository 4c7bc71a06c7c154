import 'reflect-metadata';
import { Server, Tool } from '@mcpx/core';
import { Type } from 'class-transformer';
import { IsDate, IsInt, IsOptional, IsString, Min, ValidateNested } from 'class-validator';

// Runs the same under tsx, esbuild and vitest 3 (no decorator metadata) as under tsc:
// nothing below depends on a reflected type.

export class Attendee {
  @IsString() name!: string;
}

export class BookInput {
  @IsString() room!: string; // a type rule on every property: no @Field() alone
  @IsDate() start!: Date; // @IsDate() says it is a Date
  @IsOptional() @IsInt() @Min(1) minutes?: number;
  @ValidateNested({ each: true }) @Type(() => Attendee) attendees!: Attendee[]; // @Type for every nested class
}

@Server({ name: 'rooms', version: '1.0.0' })
export class RoomServer {
  // `input` names the class: nothing reads the parameter's type.
  @Tool({ description: 'Books a room', input: BookInput })
  book(input: BookInput) {
    return `${input.room} at ${input.start.toISOString()} for ${input.attendees.length}`;
  }
}
