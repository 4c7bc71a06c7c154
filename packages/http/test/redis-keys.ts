import { createClient } from 'redis';

/** The Redis the scale-out tests share (CI starts one on 127.0.0.1:6379); each test keeps its keys under a prefix of its own. */
export const REDIS_URL = process.env.MCPX_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Deletes every key under `prefix`: what a test's servers left behind. */
export async function dropRedisKeys(prefix: string, url = REDIS_URL): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  const keys: string[] = [];
  for await (const batch of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) keys.push(...batch);
  if (keys.length > 0) await client.del(keys);
  await client.quit();
}
