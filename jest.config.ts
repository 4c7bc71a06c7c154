import type { Config } from 'jest';

const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/apps'],
  testMatch: ['**/test/**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }] },
  moduleNameMapper: { '^@mcpx/(core|stdio|http|testing|cli)$': '<rootDir>/packages/$1/src' },
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
  testTimeout: 20000,
};

export default config;
