/**
 * Splits a byte stream into newline-terminated frames without ever holding more than
 * `maxBytes` of one frame: a longer line is reported once and skipped up to its newline.
 * Lines are handed over as bytes (without the newline or a trailing CR; blank lines are dropped)
 * so the message budget can be checked before any string is made of them.
 */
export class LineReader {
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: Buffer) => void,
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
      let line = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size);
      if (line.length > 0 && line[line.length - 1] === CR) line = line.subarray(0, -1);
      if (!isBlank(line)) this.onLine(line);
    }
    this.parts = [];
    this.size = 0;
    this.skipping = false;
  }
}

const CR = 0x0d;

function isBlank(line: Buffer): boolean {
  for (const byte of line) if (byte !== 0x20 && byte !== 0x09 && byte !== CR) return false;
  return true;
}
