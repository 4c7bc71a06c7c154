import { RequestIdScanner, type RequestId } from '@mcpx/core/transport';

/** How far past the limit a skipped line is scanned for its request's id, by default. */
export const DEFAULT_ID_SCAN_BYTES = 64 * 1024 * 1024;

/**
 * Splits a byte stream into newline-terminated frames without ever holding more than
 * `maxBytes` of one frame: a longer line is reported once and skipped up to its newline.
 * Lines are handed over as bytes (without the newline or a trailing CR; blank lines are dropped)
 * so the message budget can be checked before any string is made of them.
 * A skipped line is scanned for its top-level `id` as it goes by (RequestIdScanner: O(1) memory,
 * at most `idScanBytes` past the limit), so that its error can name the request.
 */
export class LineReader {
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;
  private scanner: RequestIdScanner | undefined;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: Buffer) => void,
    private readonly onOversize: (bytes: number, id: RequestId | undefined) => void,
    private readonly idScanBytes = DEFAULT_ID_SCAN_BYTES,
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
      // Once the scan is over (the id found, or the bound passed), this returns at once.
      this.scanner?.push(piece);
      return;
    }
    this.size += piece.length;
    if (this.size > this.maxBytes) {
      // The bytes held so far are scanned first, then the rest of the line as it comes.
      const scanner = new RequestIdScanner(this.maxBytes + this.idScanBytes);
      for (const part of this.parts) if (scanner.push(part)) break;
      scanner.push(piece);
      this.scanner = scanner;
      this.parts = [];
      this.skipping = true;
      return;
    }
    this.parts.push(piece);
  }

  private endLine(): void {
    if (this.skipping) {
      const id = this.scanner?.result();
      this.scanner = undefined;
      this.onOversize(this.size, id);
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
