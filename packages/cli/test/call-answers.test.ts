import { PassThrough } from 'node:stream';
import { ServerRequests } from '../src/call-answers';

/** Declared whatever else is: from the terminal, a tool's view is read and a view's own tools are called. */
const APPS = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };

/** The form `mcpx call` shows on a terminal when a tool asks and no --answer is left. */
function terminal(lines: string[]) {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (chunk: Buffer) => (shown += chunk.toString()));
  // Each answer is typed once its prompt is shown, as a person would.
  let next = 0;
  output.on('data', () => {
    if (shown.endsWith(': ') && next < lines.length) input.write(`${lines[next++]}\n`);
  });
  return { io: { input, output }, shown: () => shown };
}

const form = {
  id: 7,
  method: 'elicitation/create',
  params: {
    mode: 'form',
    message: 'Book the room?',
    requestedSchema: {
      type: 'object',
      properties: {
        confirm: { type: 'boolean', title: 'Book it' },
        seats: { type: 'integer', description: 'How many', default: 2 },
        room: { type: 'string', enum: ['red', 'blue'] },
        note: { type: 'string' },
      },
      required: ['confirm', 'room'],
    },
  },
};

it('asks each field on the terminal, checks its type, keeps defaults, and accepts', async () => {
  const t = terminal(['maybe', 'y', 'two', '', 'green', 'blue', '']);
  const requests = new ServerRequests([], true, t.io);
  expect(requests.capabilities()).toEqual({ elicitation: { form: {} }, ...APPS });
  expect(await requests.answer(form)).toEqual({ result: { action: 'accept', content: { confirm: true, seats: 2, room: 'blue' } } });
  expect(t.shown()).toContain('Book the room?');
  expect(t.shown()).toContain('Book it [y/n]: ');
  expect(t.shown()).toContain('  y or n\n');
  expect(t.shown()).toContain('  an integer\n');
  expect(t.shown()).toContain('  one of red, blue\n');
});

it('lets the person decline or cancel instead', async () => {
  expect(await new ServerRequests([], true, terminal(['!decline']).io).answer(form)).toEqual({ result: { action: 'decline' } });
  expect(await new ServerRequests([], true, terminal(['y', '3', '!cancel']).io).answer(form)).toEqual({ result: { action: 'cancel' } });
});

it('uses the --answer values first, in order; without them and without a terminal it declares no elicitation', async () => {
  const requests = new ServerRequests([{ action: 'accept', content: { confirm: true, room: 'red' } }, { action: 'decline' }], false);
  expect(await requests.answer(form)).toEqual({ result: { action: 'accept', content: { confirm: true, room: 'red' } } });
  expect(await requests.answer(form)).toEqual({ result: { action: 'decline' } });
  expect(new ServerRequests([], false).capabilities()).toEqual(APPS);
  expect(await new ServerRequests([], false).answer({ id: 1, method: 'ping' })).toEqual({ result: {} });
  expect(await new ServerRequests([], false).answer({ id: 2, method: 'sampling/createMessage' })).toEqual({
    error: { code: -32601, message: 'mcpx call does not handle sampling/createMessage' },
  });
});
