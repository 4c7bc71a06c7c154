/** The media types of the files skills usually hold, by extension. */
const BY_EXTENSION = new Map<string, string>([
  ['md', 'text/markdown'],
  ['markdown', 'text/markdown'],
  ['txt', 'text/plain'],
  ['json', 'application/json'],
  ['yaml', 'application/yaml'],
  ['yml', 'application/yaml'],
  ['toml', 'application/toml'],
  ['csv', 'text/csv'],
  ['html', 'text/html'],
  ['css', 'text/css'],
  ['xml', 'application/xml'],
  ['js', 'text/javascript'],
  ['mjs', 'text/javascript'],
  ['ts', 'text/x-typescript'],
  ['py', 'text/x-python'],
  ['sh', 'application/x-sh'],
  ['png', 'image/png'],
  ['jpg', 'image/jpeg'],
  ['jpeg', 'image/jpeg'],
  ['gif', 'image/gif'],
  ['webp', 'image/webp'],
  ['svg', 'image/svg+xml'],
  ['pdf', 'application/pdf'],
  ['zip', 'application/zip'],
]);

/** A file's media type: by its extension, else text/plain for UTF-8 text and application/octet-stream for anything else. */
export function mimeTypeOf(path: string, bytes: Uint8Array): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  const known = dot > 0 ? BY_EXTENSION.get(name.slice(dot + 1).toLowerCase()) : undefined;
  if (known) return known;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return 'text/plain';
  } catch {
    return 'application/octet-stream';
  }
}
