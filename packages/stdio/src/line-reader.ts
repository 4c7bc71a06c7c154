/**
 * Splits a byte stream into newline-terminated frames without ever holding more than
 * `maxBytes` of one frame: a longer line is reported once and skipped up to its newline.
 */
export class LineReader {
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOversize: (bytes: number) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) {
        this.append(chunk.subarray(start));
        return;
      }
      this.append(chunk.subarray(start, nl));
      this.endLine();
      start = nl + 1;
    }
  }

  /** At end of input: a last line without a newline still counts. */
  end(): void {
    if (this.size > 0 || this.parts.length > 0) this.endLine();
  }

  private append(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.skipping) {
      this.size += piece.length;
      return;
    }
    this.size += piece.length;
    if (this.size > this.maxBytes) {
      this.parts = [];
      this.skipping = true;
      return;
    }
    this.parts.push(piece);
  }

  private endLine(): void {
    if (this.skipping) {
      this.onOversize(this.size);
    } else {
      const buf = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size);
      let line = buf.toString('utf8');
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line.trim().length > 0) this.onLine(line);
    }
    this.parts = [];
    this.size = 0;
    this.skipping = false;
  }
}
