import 'reflect-metadata';
import { Field, InputRequired, Resource, Server, Tool, type RequestContext } from '@mcpx/core';
import { listen } from '@mcpx/http';
import { IsBoolean, IsString } from 'class-validator';

export class NoteRef {
  @Field({ description: 'Note id' })
  @IsString()
  id!: string;
}

/** The form ctx.elicit() shows; the answer comes back as a validated Confirm. */
export class Confirm {
  @Field({ title: 'Confirm' })
  @IsBoolean()
  confirm!: boolean;
}

/** One class serves 2025-11-25 sessions and 2026-07-28 clients alike. */
@Server({ name: 'notes-eras', version: '1.0.0' })
export class ErasNotes {
  readonly notes = new Map<string, { text: string; version: number }>([
    ['welcome', { text: 'Hello', version: 1 }],
    ['draft', { text: 'Work in progress', version: 3 }],
  ]);
  readonly archived = new Set<string>();

  // Legacy: elicitation/create on the call's stream. 2026-07-28: an input request; the client
  // retries with the answer, and this method runs again from the top.
  @Tool({ description: 'Archives a note, after asking' })
  async archive(input: NoteRef, ctx: RequestContext) {
    if (!this.notes.has(input.id)) return `No note ${input.id}`; // reading is safe to repeat
    const answer = await ctx.elicit(`Archive ${input.id}?`, Confirm);
    if (answer.action !== 'accept' || !answer.content?.confirm) return 'Kept it';
    this.archived.add(input.id); // the side effect comes after the last question
    return `Archived ${input.id}`;
  }

  // The lower-level form: the handler names its input requests and keeps its own state.
  @Tool({ description: 'Deletes a note, after confirmation' })
  remove(input: NoteRef, ctx: RequestContext) {
    const checked = ctx.requestState as { version: number } | undefined; // the state given last round, verified
    if (!checked) {
      const note = this.notes.get(input.id);
      if (!note) return `No note ${input.id}`;
      throw new InputRequired({
        inputRequests: {
          confirm: {
            method: 'elicitation/create',
            params: {
              mode: 'form',
              message: `Delete ${input.id}?`,
              requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
            },
          },
        },
        state: { version: note.version },
      });
    }
    // Answers by key, as the client sent them: nothing checks them against the schema here.
    const answer = ctx.inputResponses?.confirm as { action?: string; content?: { confirm?: unknown } } | undefined;
    if (answer?.action !== 'accept' || answer.content?.confirm !== true) return 'Kept it';
    if (this.notes.get(input.id)?.version !== checked.version) return `${input.id} changed meanwhile; not deleted`;
    this.notes.delete(input.id);
    return `Deleted ${input.id}`;
  }

  // 2026-07-28 clients may reuse a read for a minute; legacy results carry no hints.
  @Resource({ uri: 'notes://index', mimeType: 'application/json', cache: { ttlMs: 60_000, cacheScope: 'private' } })
  index() {
    return JSON.stringify([...this.notes.keys()]);
  }
}

if (require.main === module) {
  // Both eras on one endpoint. Instances that share MCPX_REQUEST_STATE_KEY accept each other's requestState.
  void listen(new ErasNotes(), { requestStateTtlMs: 5 * 60_000, cache: { ttlMs: 0, cacheScope: 'private' } });
}
