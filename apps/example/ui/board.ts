// The notes board: an MCP Apps view of the example server. The host renders it for results of the
// `search` tool; it shows the notes found, reads a note (resources/read) and deletes one through
// the `delete` tool, whose confirmation the host asks the user for like any call's.
import { App, PostMessageTransport } from '@modelcontextprotocol/ext-apps';

interface FoundNote {
  id: string;
  title: string;
  tags: string[];
}

const app = new App({ name: 'mcpx-notes-board', version: '1.0.0' }, {});
const cards = document.getElementById('cards')!;
const heading = document.getElementById('heading')!;
const status = document.getElementById('status')!;
const note = document.getElementById('note')!;

function textOf(result: { content?: { type: string; text?: string }[] }): string {
  return (result.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

function show(found: FoundNote[], total: number): void {
  heading.textContent = `${total} note${total === 1 ? '' : 's'} found`;
  cards.replaceChildren(...found.map(card));
}

function card(found: FoundNote): HTMLElement {
  const el = document.createElement('article');
  el.className = 'card';
  el.dataset.id = found.id;
  const title = document.createElement('h2');
  title.textContent = found.title;
  const tags = document.createElement('div');
  tags.className = 'tags';
  tags.textContent = found.tags.map((t) => `#${t}`).join(' ');
  const open = document.createElement('button');
  open.textContent = 'Open';
  open.addEventListener('click', () => void openNote(found));
  const remove = document.createElement('button');
  remove.textContent = 'Delete';
  remove.addEventListener('click', () => void deleteNote(found, el));
  el.append(title, tags, open, remove);
  return el;
}

async function openNote(found: FoundNote): Promise<void> {
  try {
    const read = await app.readServerResource({ uri: `notes://notes/${encodeURIComponent(found.id)}` });
    const first = read.contents[0];
    note.textContent = first && 'text' in first ? first.text : '';
    note.hidden = false;
    status.textContent = `Opened note ${found.id}.`;
  } catch (err) {
    status.textContent = `Could not open note ${found.id}: ${(err as Error).message}`;
  }
}

async function deleteNote(found: FoundNote, el: HTMLElement): Promise<void> {
  status.textContent = `Deleting note ${found.id}…`;
  try {
    const result = await app.callServerTool({ name: 'delete', arguments: { id: found.id } });
    status.textContent = textOf(result);
    if (!result.isError && /^Deleted/.test(status.textContent)) el.remove();
  } catch (err) {
    status.textContent = `Could not delete note ${found.id}: ${(err as Error).message}`;
  }
}

app.ontoolresult = (result) => {
  const found = result.structuredContent as { notes?: FoundNote[]; total?: number } | undefined;
  if (result.isError || !found?.notes) {
    heading.textContent = textOf(result) || 'The search failed.';
    cards.replaceChildren();
    return;
  }
  show(found.notes, found.total ?? found.notes.length);
};

void app.connect(new PostMessageTransport(window.parent, window.parent)).catch((err: Error) => {
  status.textContent = `Could not reach the host: ${err.message}`;
});
