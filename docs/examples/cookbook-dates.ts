import 'reflect-metadata';
import { Field, Server, Tool } from '@mcpx/core';
import { Type } from 'class-transformer';
import { IsDate, IsOptional } from 'class-validator';

export class MeetingInput {
  // A Date travels as an ISO 8601 date-time string and reaches the method as a Date.
  @Field({ description: 'When it starts' })
  @IsDate()
  start!: Date;

  // An array of dates: the element type is not reflected, so name it with @Type.
  @IsOptional()
  @Type(() => Date)
  @IsDate({ each: true })
  reminders?: Date[];
}

@Server({ name: 'calendar', version: '1.0.0' })
export class CalendarServer {
  @Tool({ description: 'Schedules a meeting' })
  schedule(input: MeetingInput) {
    return `Meeting on ${input.start.toISOString().slice(0, 10)} with ${input.reminders?.length ?? 0} reminders`;
  }
}
