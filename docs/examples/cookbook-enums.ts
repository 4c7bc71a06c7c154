import 'reflect-metadata';
import { Server, Tool } from '@mcpx/core';
import { IsEnum, IsIn, IsOptional } from 'class-validator';

export enum Priority {
  Low = 'low',
  High = 'high',
}

export enum Level {
  Debug = 10,
  Info = 20,
}

export class TicketInput {
  // A string enum: its values, and "type": "string".
  @IsEnum(Priority) priority!: Priority;

  // A union of literals is a string to TypeScript's metadata: list the values with @IsIn.
  @IsIn(['bug', 'feature']) kind!: 'bug' | 'feature';

  // A numeric enum: only its values (not the reverse-mapped names).
  @IsOptional() @IsEnum(Level) level?: Level;

  // Several values of an enum.
  @IsOptional() @IsEnum(Priority, { each: true }) watch?: Priority[];
}

@Server({ name: 'tickets', version: '1.0.0' })
export class TicketServer {
  @Tool({ description: 'Files a ticket' })
  file(input: TicketInput) {
    return `${input.kind} at ${input.priority} priority`;
  }
}
