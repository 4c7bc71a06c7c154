import type { Config } from 'jest';
import base from './jest.config';

/**
 * `npm run test:browser`: the tests that drive a real browser (*.browser.test.ts), left out of
 * `npm test` because a fresh machine has no Chromium. CI installs it (.ci/run) and runs them.
 */
const config: Config = {
  ...base,
  testMatch: ['**/test/**/*.browser.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  // One browser at a time.
  maxWorkers: 1,
  testTimeout: 120_000,
};

export default config;
