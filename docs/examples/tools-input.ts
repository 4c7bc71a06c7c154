import 'reflect-metadata';
import { Field, Server, Tool } from '@mcpx/core';
import { serveStdio } from '@mcpx/stdio';
import { ArrayMaxSize, IsEmail, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/** Every property with a class-validator rule becomes a property of the tool's inputSchema. */
export class InviteInput {
  @Field({ description: 'Who to invite', examples: ['ada@example.com'] })
  @IsEmail()
  email!: string;

  @Field({ description: 'Their role on the team', default: 'viewer' })
  @IsOptional()
  @IsIn(['viewer', 'editor', 'admin'])
  role?: string;

  @Field({ description: 'Days until the invitation expires', default: 7 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(30)
  days?: number;

  @Field({ description: 'Teams to add them to' })
  @IsOptional()
  @IsString({ each: true })
  @MaxLength(40, { each: true })
  @ArrayMaxSize(5)
  teams?: string[];
}

@Server({ name: 'team', version: '1.0.0' })
export class TeamServer {
  @Tool({ description: 'Invites someone to the team', annotations: { destructiveHint: false } })
  invite(input: InviteInput) {
    return `Invited ${input.email} as ${input.role ?? 'viewer'} for ${input.days ?? 7} days`;
  }

  // A tool without input: `_input: void`, or no parameter at all.
  @Tool({ description: 'Counts the pending invitations' })
  pending(_input: void) {
    return '0 pending';
  }
}

if (require.main === module) serveStdio(new TeamServer());
