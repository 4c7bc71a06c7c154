import type { Config } from 'jest';
import base from './jest.config';

/** `npm run test:load`: only the load and benchmark tests (*.load.test.ts) that `npm test` leaves out. */
const config: Config = {
  ...base,
  testMatch: ['**/test/**/*.load.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  // One at a time: each measures or loads the machine, and must not compete with another.
  maxWorkers: 1,
  testTimeout: 300_000,
};

export default config;
