import { connect, quietOptions } from '@mcpx/testing';
import { ErasNotes } from './protocol-eras';

// One suite, both eras: a 2025-11-25 session, and a 2026-07-28 client that retries with its answers.
describe.each([{ protocolVersion: '2025-11-25' }, { protocolVersion: '2026-07-28' }])('the notes server, $protocolVersion', (era) => {
  it('archives a note after asking', async () => {
    const client = await connect(new ErasNotes(), { ...quietOptions(), ...era, capabilities: { elicitation: { form: {} } } });
    client.onRequest('elicitation/create', () => ({ action: 'accept', content: { confirm: true } }));

    const result = await client.callTool('archive', { id: 'welcome' });
    expect(result.content).toEqual([{ type: 'text', text: 'Archived welcome' }]);
    // Legacy: a request on the call's stream. 2026-07-28: an input request the client answered on its retry.
    expect(client.serverRequests.map((r) => r.method)).toEqual(['elicitation/create']);
    client.close();
  });
});
