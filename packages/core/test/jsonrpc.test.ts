import { classifyMessage, encodeMessage, parseMessage } from '../src';

describe('JSON-RPC framing', () => {
  it('classifies requests, notifications and responses', () => {
    expect(parseMessage('{"jsonrpc":"2.0","id":1,"method":"ping"}').kind).toBe('request');
    expect(parseMessage('{"jsonrpc":"2.0","id":"a","method":"ping","params":{}}').kind).toBe('request');
    expect(parseMessage('{"jsonrpc":"2.0","method":"notifications/initialized"}').kind).toBe('notification');
    expect(parseMessage('{"jsonrpc":"2.0","id":1,"result":{}}').kind).toBe('response');
    expect(parseMessage('{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"x"}}').kind).toBe('response');
  });

  it.each([
    ['{', -32700, null],
    ['[]', -32600, null],
    ['"hello"', -32600, null],
    ['{"jsonrpc":"1.0","id":7,"method":"ping"}', -32600, 7],
    ['{"jsonrpc":"2.0","id":{},"method":"ping"}', -32600, null],
    ['{"jsonrpc":"2.0","id":1.5e400,"method":"ping"}', -32600, null],
    ['{"jsonrpc":"2.0","id":3,"method":""}', -32600, 3],
    ['{"jsonrpc":"2.0","id":3,"method":"ping","params":[1]}', -32602, 3],
    ['{"jsonrpc":"2.0","method":"x","params":"p"}', -32600, null],
    ['{"jsonrpc":"2.0","id":4}', -32600, 4],
    ['{"jsonrpc":"2.0","id":4,"error":{"code":"x"}}', -32600, null],
  ])('rejects %s with %i', (text, code, id) => {
    const parsed = parseMessage(text);
    expect(parsed.kind).toBe('invalid');
    if (parsed.kind !== 'invalid') return;
    expect(parsed.error.error.code).toBe(code);
    expect(parsed.error.id).toBe(id);
    expect(parsed.error.error.message.length).toBeGreaterThan(10);
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
