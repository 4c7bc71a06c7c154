/** The URL as it may appear in messages and logs: its password, if any, replaced by `***`. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

/** The login and TLS a `redis://` / `rediss://` URL carries, for clients that take them apart from the address. */
export function credentialsOf(url: string): { username?: string; password?: string; tls: boolean } {
  const parsed = new URL(url.includes('://') ? url : `redis://${url}`);
  return {
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    tls: parsed.protocol === 'rediss:',
  };
}
