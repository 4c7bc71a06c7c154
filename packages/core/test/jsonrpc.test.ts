import { classifyMessage, encodeMessage, parseMessage } from '../src/transport';

describe('JSON-RPC framing', () => {
  it('classifies requests, notifications and responses', () => {
    expect(parseMessage('{"jsonrpc":"2.0","id":1,"method":"ping"}').kind).toBe('request');
    expect(parseMessage('{"jsonrpc":"2.0","id":"a","method":"ping","params":{}}').kind).toBe('request');
    expect(parseMessage('{"jsonrpc":"2.0","method":"notifications/initialized"}').kind).toBe('notification');
    expect(parseMessage('{"jsonrpc":"2.0","id":1,"result":{}}').kind).toBe('response');
    expect(parseMessage('{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"x"}}').kind).toBe('response');
  });

  it.each([
    ['{', -32700, undefined],
    ['[]', -32600, undefined],
    ['"hello"', -32600, undefined],
    ['{"jsonrpc":"1.0","id":7,"method":"ping"}', -32600, 7],
    ['{"jsonrpc":"2.0","id":{},"method":"ping"}', -32600, undefined],
    ['{"jsonrpc":"2.0","id":null,"method":"ping"}', -32600, undefined],
    ['{"jsonrpc":"2.0","id":1.5e400,"method":"ping"}', -32600, undefined],
    ['{"jsonrpc":"2.0","id":3,"method":""}', -32600, 3],
    ['{"jsonrpc":"2.0","id":3,"method":"ping","params":[1]}', -32602, 3],
    ['{"jsonrpc":"2.0","method":"x","params":"p"}', -32600, undefined],
    ['{"jsonrpc":"2.0","id":4}', -32600, 4],
    ['{"jsonrpc":"2.0","id":4,"error":{"code":"x"}}', -32600, undefined],
    // The schema's RequestId is a string or an integer.
    ['{"jsonrpc":"2.0","id":1.5,"method":"ping"}', -32600, undefined],
    ['{"jsonrpc":"2.0","id":true,"method":"ping"}', -32600, undefined],
    // params._meta, where present, is an object.
    ['{"jsonrpc":"2.0","id":5,"method":"ping","params":{"_meta":"x"}}', -32602, 5],
    ['{"jsonrpc":"2.0","id":5,"method":"ping","params":{"_meta":null}}', -32602, 5],
    ['{"jsonrpc":"2.0","id":5,"method":"ping","params":{"_meta":[1]}}', -32602, 5],
    ['{"jsonrpc":"2.0","method":"notifications/initialized","params":{"_meta":7}}', -32600, undefined],
  ])('rejects %s with %i', (text, code, id) => {
    const parsed = parseMessage(text);
    expect(parsed.kind).toBe('invalid');
    if (parsed.kind !== 'invalid') return;
    expect(parsed.error.error.code).toBe(code);
    expect(parsed.error.id).toBe(id);
    // An id that cannot be read is left out, never sent as null.
    expect('id' in parsed.error).toBe(id !== undefined);
    expect(parsed.error.error.message.length).toBeGreaterThan(10);
  });

  it('says what was wrong with an id or _meta', () => {
    expect(parseMessage('{"jsonrpc":"2.0","id":1.5,"method":"ping"}')).toEqual({
      kind: 'invalid',
      error: { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: "id" must be a string or an integer, got 1.5' } },
    });
    expect(parseMessage('{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":"x"}}')).toEqual({
      kind: 'invalid',
      error: { jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'Invalid params: "params._meta" must be an object, got a string' } },
    });
  });

  it('accepts integer ids of either sign, and string ids', () => {
    for (const id of ['0', '-7', '9007199254740991', '"abc"', '""']) {
      expect(parseMessage(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`).kind).toBe('request');
    }
  });

  it('classifies already-decoded values the same way', () => {
    expect(classifyMessage({ jsonrpc: '2.0', id: 1, method: 'ping' }).kind).toBe('request');
    expect(classifyMessage(null).kind).toBe('invalid');
  });

  it('turns a response that cannot be serialised into an internal error for the same id', () => {
    const errors: unknown[] = [];
    const text = encodeMessage({ jsonrpc: '2.0', id: 9, result: { big: 10n } as never }, (e) => errors.push(e));
    expect(JSON.parse(text!)).toEqual({ jsonrpc: '2.0', id: 9, error: { code: -32603, message: expect.stringContaining('serialised') } });
    expect(errors).toHaveLength(1);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(encodeMessage({ jsonrpc: '2.0', method: 'notifications/message', params: cyclic })).toBeUndefined();
    expect(encodeMessage({ jsonrpc: '2.0', id: 1, result: {} })).toBe('{"jsonrpc":"2.0","id":1,"result":{}}');
  });
});
