/** The URL a client uses to reach `path` on a server bound to `host`:`port` (an IPv6 host in brackets; a wildcard bind through loopback). */
export function serverUrl(host: string, port: number, path: string): string {
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return `http://${urlHost}:${port}${path}`;
}
