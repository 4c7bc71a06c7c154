import 'reflect-metadata';
import { Field, Server, Tool, ToolError } from '@mcpx/core';
import { IsString } from 'class-validator';

export class NoteId {
  @Field({ description: 'The id of a note' })
  @IsString()
  id!: string;
}

/** A stand-in for a database driver, whose errors name tables and hosts. */
const db = {
  find(id: string): { id: string; text: string } | undefined {
    if (id === 'broken') throw new Error('connect ECONNREFUSED 10.0.4.12:5432 (notes_prod)');
    return id === 'welcome' ? { id, text: 'Hello' } : undefined;
  },
};

// Served with { maskErrors: true } (or MCPX_MASK_ERRORS=1, or mcpx serve --mask-errors).
@Server({ name: 'notes', version: '1.0.0' })
export class MaskedNotes {
  @Tool({ description: 'Reads a note' })
  get_note(input: NoteId) {
    const note = db.find(input.id); // a driver error here reaches the client as a generic message
    if (!note) throw new ToolError(`No note has id "${input.id}"; search_notes lists them`); // told as it is
    return note.text;
  }
}
