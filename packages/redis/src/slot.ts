/** The Redis Cluster hash slot of a key: CRC16 (XMODEM) of its hash tag, or of the whole key, mod 16384. */
export function keySlot(key: string): number {
  const bytes = Buffer.from(key, 'utf8');
  let start = 0;
  let end = bytes.length;
  const open = bytes.indexOf(0x7b); // {
  if (open !== -1) {
    const close = bytes.indexOf(0x7d, open + 1); // }
    // A tag counts only when it is not empty: `{}` hashes the whole key.
    if (close > open + 1) {
      start = open + 1;
      end = close;
    }
  }
  let crc = 0;
  for (let i = start; i < end; i++) crc = ((crc << 8) ^ CRC16_TABLE[((crc >> 8) ^ bytes[i]!) & 0xff]!) & 0xffff;
  return crc & 0x3fff;
}

const CRC16_TABLE = (() => {
  const table = new Uint16Array(256);
  for (let n = 0; n < 256; n++) {
    let crc = n << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[n] = crc;
  }
  return table;
})();

/** Keys grouped by slot, in their first appearance's order: one command a group on a cluster. */
export function bySlot(keys: string[]): string[][] {
  const groups = new Map<number, string[]>();
  for (const key of keys) {
    const slot = keySlot(key);
    const group = groups.get(slot);
    if (group) group.push(key);
    else groups.set(slot, [key]);
  }
  return [...groups.values()];
}
