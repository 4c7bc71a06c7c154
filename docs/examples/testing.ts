import { McpError } from '@mcpx/core';
import { connect, memoryLogger, quietOptions, rpcErrorOf } from '@mcpx/testing';
import { AssistantServer } from './context-client-requests';
import { FilesServer } from './tools-errors';
import { ImportServer } from './context-logging-progress';

describe('the files server', () => {
  it('reports a missing file to the model as isError', async () => {
    const client = await connect(new FilesServer(), quietOptions());
    const result = await client.callTool('read', { path: 'nope.txt' });
    expect(result.isError).toBe(true);
    client.close();
  });

  it('fails the request on an McpError', async () => {
    const client = await connect(new FilesServer(), quietOptions());
    const error = await rpcErrorOf(client.callTool('fetch', { path: 'notes.txt' }));
    expect(error.code).toBe(-32602);
    expect(error.message).toBe('path must be a file: URI');
    expect(new McpError(error.code, error.message)).toBeInstanceOf(Error);
    client.close();
  });
});

describe('the assistant server', () => {
  it('answers sampling and elicitation like a client would', async () => {
    const client = await connect(new AssistantServer(), {
      ...quietOptions(),
      capabilities: { sampling: {}, elicitation: { form: {} } },
    });
    client.onRequest('sampling/createMessage', () => ({ role: 'assistant', content: { type: 'text', text: 'Waves...' }, model: 'test' }));
    client.onRequest('elicitation/create', () => ({ action: 'accept', content: { confirm: true, reason: 'cleanup' } }));

    expect((await client.callTool('haiku')).content).toEqual([{ type: 'text', text: 'Waves...' }]);
    expect((await client.callTool('delete_all')).content).toEqual([{ type: 'text', text: 'Deleted. Reason: cleanup' }]);
    expect(client.serverRequests.map((r) => r.method)).toEqual(['sampling/createMessage', 'elicitation/create']);
    client.close();
  });
});

describe('the import server', () => {
  it('logs, and reports progress when asked', async () => {
    const { logger, lines } = memoryLogger();
    const client = await connect(new ImportServer(), { logger });
    const progress: number[] = [];
    const result = await client.callTool('import_rows', { rows: 250 }, { onProgress: (p) => progress.push(p.progress) });
    expect(result.content).toEqual([{ type: 'text', text: 'imported 250 rows' }]);
    expect(progress).toEqual([100, 200, 250]);
    expect(lines.some((line) => line.msg === 'import started')).toBe(true);
    client.close();
  });
});
