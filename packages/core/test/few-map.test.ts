import { FewMap } from '@mcpx/core/transport';

describe('FewMap', () => {
  it('answers as a Map does, through one entry, several, and back to one', () => {
    const few = new FewMap<string | number, string>();
    const map = new Map<string | number, string>();
    const same = () => {
      expect(few.size).toBe(map.size);
      expect([...few.values()].sort()).toEqual([...map.values()].sort());
      for (const key of ['a', 'b', 'c', 1, '1', 2]) expect(few.get(key)).toBe(map.get(key));
    };
    const steps: [op: 'set' | 'delete', key: string | number, value?: string][] = [
      ['set', 'a', 'A'],
      ['set', 'a', 'A2'],
      ['set', 1, 'one'],
      ['set', '1', 'string one'],
      ['delete', 'a'],
      ['set', 'b', 'B'],
      ['delete', 1],
      ['delete', 'missing'],
      ['set', '1', 'string one again'],
      ['delete', 'b'],
      ['delete', '1'],
      ['set', 2, 'two'],
    ];
    for (const [op, key, value] of steps) {
      if (op === 'set') {
        few.set(key, value!);
        map.set(key, value!);
      } else expect(few.delete(key)).toBe(map.delete(key));
      same();
    }
    few.clear();
    expect(few.size).toBe(0);
    expect([...few.values()]).toEqual([]);
  });
});
