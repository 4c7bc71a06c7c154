// ESLint for the packages' and apps' sources and tests: typescript-eslint's recommended rules with
// type information, less those that fight deliberate house style, plus import cycles. Formatting
// is Prettier's (`npm run format`); layering is packages/core/test/layers.test.ts's.
import { defineConfig, globalIgnores } from 'eslint/config';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX, flatConfigs as importXConfigs } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

export default defineConfig(
  globalIgnores(['**/dist/', '**/node_modules/']),
  {
    files: ['packages/*/src/**/*.ts', 'packages/*/test/**/*.ts', 'apps/*/src/**/*.ts', 'apps/*/test/**/*.ts'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    plugins: { 'import-x': importX },
    languageOptions: {
      // One program for everything: the root tsconfig.json holds every package's src and test, with
      // @mcpx/* mapped to the sources (one program is several times faster than one per package).
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    settings: {
      // Without the TypeScript extensions and parser, import-x reads no .ts file and sees no cycle;
      // its resolver is the one below (resolver-next), with the root tsconfig's paths.
      ...importXConfigs.typescript.settings,
      'import-x/resolver': undefined,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      // A cycle that stays at run time: load order decides what is undefined at module init.
      'import-x/no-cycle': 'error',
      'import-x/no-self-import': 'error',

      // Defects the recommended sets leave out (none found today; they keep it so).
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      eqeqeq: ['error', 'smart'],
      'no-self-compare': 'error',
      'array-callback-return': 'error',
      'no-unmodified-loop-condition': 'error',
      'no-unreachable-loop': 'error',
      // A `let` assigned once after closures that read it (a stop() called before the assignment) is right as it is.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],

      // `any` and `Function` enter on purpose where metadata and JSON come in (reflect-metadata,
      // decorators, JSON.parse, the test client's results); strict mode checks everything else.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-function-type': 'off',
      // Style, not defects: assertions kept for the reader, `async` kept to promise a Promise,
      // require() for lazy and optional loads, a triple-slash reference to a local .d.ts.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-require-imports': 'off',
      '@typescript-eslint/triple-slash-reference': 'off',
      // Wire values are stringified on purpose (String(value), `${name}` after a typeof check that
      // does not narrow across a variable): these flag that, not mistakes.
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
      // noUnusedLocals already reports unused locals and imports; this adds unused parameters,
      // with `_` marking one left unused on purpose, and rest siblings used to omit keys.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true, destructuredArrayIgnorePattern: '^_' },
      ],
      // Stores return `T | Promise<T>` (in memory, or remote): awaiting a mix of both is intended.
      '@typescript-eslint/await-thenable': ['error', { allowMixedPromiseArrays: true }],
      // Forwarding an abort's reason (unknown) is right; rejecting with a string literal is not.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true, allowThrowingAny: true }],
    },
  },
  {
    // What a published package's code imports, its package.json must name (types too: its .d.ts
    // files name them for the user's compiler).
    files: ['packages/*/src/**/*.ts'],
    rules: {
      'import-x/no-extraneous-dependencies': ['error', { devDependencies: false, includeTypes: true }],
    },
  },
  {
    files: ['packages/*/test/**/*.ts', 'apps/*/test/**/*.ts'],
    rules: {
      // Tests pass jest spies and saved methods around by reference.
      '@typescript-eslint/unbound-method': 'off',
      // Tests run code they transpiled themselves through new Function on purpose.
      '@typescript-eslint/no-implied-eval': 'off',
    },
  },
);
