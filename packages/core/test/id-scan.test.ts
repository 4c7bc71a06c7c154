import { RequestIdScanner } from '../src/transport';

/** Scans `text` fed in chunks of `size` bytes (all at once by default). */
function scan(text: string | Buffer, size = Number.POSITIVE_INFINITY, maxBytes?: number): RequestIdScanner {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  const scanner = new RequestIdScanner(maxBytes);
  for (let at = 0; at < bytes.length; at += size) if (scanner.push(bytes.subarray(at, Math.min(bytes.length, at + size)))) break;
  return scanner;
}

const MB = 1024 * 1024;

describe('RequestIdScanner', () => {
  it('finds an id that comes first, and stops there', () => {
    const scanner = new RequestIdScanner();
    expect(scanner.push(Buffer.from('{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"pad":"'))).toBe(true);
    expect(scanner.done).toBe(true);
    expect(scanner.result()).toBe(42);
  });

  it('finds an id that comes last, after 1 MB of params (the official SDK order)', () => {
    const params = { name: 'echo', arguments: { text: 'x'.repeat(MB), list: [1, '"id":3', { id: 4, nested: { id: 5 } }], id: 6 } };
    const message = JSON.stringify({ method: 'tools/call', params, jsonrpc: '2.0', id: 7 });
    expect(scan(message).result()).toBe(7);
    expect(scan(message, 64 * 1024).result()).toBe(7);
    expect(scan(message, 1000).result()).toBe(7);
  });

  it('reads string ids with escapes, and whitespace around the colon', () => {
    expect(scan('{"method":"ping","id":"a\\"b\\\\c\\u00e9"}').result()).toBe('a"b\\cé');
    expect(scan('{ "method" : "ping" ,\n  "id" \t:\r\n "req-1" }').result()).toBe('req-1');
    expect(scan('{"method":"ping","id"  :  -12 }').result()).toBe(-12);
    expect(scan('{"params":{"s":"\\"},\\"id\\":9"},"id":"ok"}').result()).toBe('ok');
    // An escaped spelling of the key is the same key.
    expect(scan('{"method":"ping","\\u0069d":3}').result()).toBe(3);
    expect(scan('{"id":"\u00e9\u4e2d"}').result()).toBe('\u00e9\u4e2d');
  });

  it('ignores "id" keys nested in params, and "id" written as a value', () => {
    expect(scan('{"params":{"id":1,"arguments":{"id":"x"}},"method":"id","x":["id",{"id":2}],"id":3}').result()).toBe(3);
    expect(scan('{"params":{"id":1},"method":"ping"}').result()).toBeUndefined();
    expect(scan('{"method":"id","params":["id"]}').result()).toBeUndefined();
  });

  it('finds the id however a small message is split, at every chunk boundary', () => {
    const messages: [string, string | number][] = [
      ['{"jsonrpc":"2.0","method":"tools/call","params":{"id":1,"s":"a\\"id\\":2"},"id":"k\\"7"}', 'k"7'],
      ['{ "params" : { "id" : [1,2] } , "id" : 12345 , "method":"x"}', 12345],
      ['{"\\u0069d":"\\u00e9","method":"ping"}', 'é'],
    ];
    for (const [message, id] of messages) {
      const bytes = Buffer.from(message);
      for (let cut = 1; cut < bytes.length; cut++) {
        const scanner = new RequestIdScanner();
        scanner.push(bytes.subarray(0, cut));
        scanner.push(bytes.subarray(cut));
        expect([cut, scanner.result()]).toEqual([cut, id]);
      }
      for (let size = 1; size <= 5; size++) expect([size, scan(bytes, size).result()]).toEqual([size, id]);
    }
  });

  it('gives up after its byte bound, unless the id came before it', () => {
    const message = JSON.stringify({ method: 'tools/call', params: { pad: 'x'.repeat(10_000) }, jsonrpc: '2.0', id: 7 });
    const bounded = scan(message, 1000, 5000);
    expect(bounded.done).toBe(true);
    expect(bounded.result()).toBeUndefined();
    expect(bounded.scanned).toBe(5000);
    // Past the bound, further bytes are not looked at.
    expect(bounded.push(Buffer.from(',"id":8}'))).toBe(true);
    expect(bounded.result()).toBeUndefined();
    expect(scan(message, 1000, message.length).result()).toBe(7);
    expect(scan('{"id":1,"params":{"pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}}', 3, 10).result()).toBe(1);
  });

  it('finds no id in a batch, a non-object, or an object without one', () => {
    expect(scan('[{"jsonrpc":"2.0","id":1,"method":"ping"}]').result()).toBeUndefined();
    expect(scan('[{"jsonrpc":"2.0","id":1,"method":"ping"}]').done).toBe(true);
    expect(scan('  "id"').result()).toBeUndefined();
    expect(scan('{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"x"}}').result()).toBeUndefined();
    expect(scan('{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"x"}}').done).toBe(true);
  });

  it('takes only string and integer ids, 256 bytes at most', () => {
    for (const value of ['null', 'true', '{"a":1}', '[1]', '1.5', '1-2', `"${'a'.repeat(300)}"`]) {
      expect([value, scan(`{"method":"ping","id":${value},"x":1}`).result()]).toEqual([value, undefined]);
    }
    expect(scan(`{"id":"${'a'.repeat(200)}"}`).result()).toBe('a'.repeat(200));
    expect(scan('{"id":1e3}').result()).toBe(1000);
  });

  it('scans megabytes of string quickly', () => {
    const message = Buffer.from(JSON.stringify({ params: { text: 'x\\"'.repeat(8 * MB) }, id: 'last' }));
    const started = performance.now();
    expect(scan(message, 64 * 1024).result()).toBe('last');
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
