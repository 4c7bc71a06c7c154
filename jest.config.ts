import type { Config } from 'jest';

const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/apps'],
  testMatch: ['**/test/**/*.test.ts'],
  // Load and benchmark tests (*.load.test.ts) are slow and sensitive to other work on the machine: `npm run test:load` runs them.
  // Browser tests (*.browser.test.ts) need Chromium, which a fresh machine lacks: `npm run test:browser` runs them.
  testPathIgnorePatterns: ['/node_modules/', '\\.load\\.test\\.ts$', '\\.browser\\.test\\.ts$'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }] },
  moduleNameMapper: {
    '^@mcpx/core/(transport|errors)$': '<rootDir>/packages/core/src/$1',
    '^@mcpx/core/(protocol|schema|registry|context|stores|telemetry)$': '<rootDir>/packages/core/src/exports/$1',
    '^@mcpx/(core|stdio|http|testing|cli|redis|otel|openapi|proxy)$': '<rootDir>/packages/$1/src',
  },
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
  testTimeout: 20000,
};

export default config;
