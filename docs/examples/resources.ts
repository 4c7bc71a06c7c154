import 'reflect-metadata';
import { McpServer, McpError, Resource, ResourceTemplate, Server, Tool, Field } from '@mcpx/core';
import { IsString } from 'class-validator';

const notes = new Map<string, string>([['welcome', 'Hello from mcpx']]);

export class SetNoteInput {
  @Field({ description: 'Note id' }) @IsString() id!: string;
  @Field({ description: 'New text' }) @IsString() text!: string;
}

/** Extends McpServer to reach notifyResourceUpdated (and the live registry). */
@Server({ name: 'notes', version: '1.0.0' })
export class NotesResources extends McpServer {
  // A fixed URI. A string is text content, a Buffer a blob.
  @Resource({ uri: 'notes://index', mimeType: 'application/json', description: 'Every note id' })
  index() {
    return JSON.stringify([...notes.keys()]);
  }

  @Resource({ uri: 'notes://logo', mimeType: 'image/png' })
  logo() {
    return Buffer.from('iVBORw0KGgo=', 'base64');
  }

  // An RFC 6570 template: the method gets the variables. `complete` offers values for a variable.
  @ResourceTemplate({
    uriTemplate: 'notes://notes/{id}',
    mimeType: 'text/plain',
    description: 'One note',
    complete: { id: (value) => [...notes.keys()].filter((id) => id.startsWith(value)) },
  })
  note({ id }: Record<string, string | string[]>) {
    const body = notes.get(String(id));
    if (body === undefined) throw McpError.resourceNotFound(`notes://notes/${id}`);
    return body;
  }

  // Clients that sent resources/subscribe for this URI get notifications/resources/updated.
  @Tool({ description: 'Changes a note' })
  set_note(input: SetNoteInput) {
    notes.set(input.id, input.text);
    this.notifyResourceUpdated(`notes://notes/${input.id}`);
    return 'saved';
  }
}
