import { newSessionId } from '../src/session-id';

describe('newSessionId', () => {
  it('gives 192-bit base64url ids, all distinct, across several refills of its random pool', () => {
    const ids = Array.from({ length: 1000 }, () => newSessionId());
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // 1000 ids of 24 bytes each: no byte position of the pool is stuck (a wiped byte read again would show as 'A's).
    const decoded = ids.map((id) => Buffer.from(id, 'base64url'));
    for (let i = 0; i < 24; i++) expect(new Set(decoded.map((b) => b[i])).size).toBeGreaterThan(100);
  });
});
