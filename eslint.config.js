import tseslint from 'typescript-eslint';
import jest from 'eslint-plugin-jest';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.dev/**', 'bench/results/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'off',
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through @lib/core config only.' },
      ],
    },
  },
  {
    // architecture.md: the sandbox judges the gateway with its own eyes, so it imports nothing from libs/*.
    files: ['apps/sandbox/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@lib/*'],
              message:
                'The sandbox imports nothing from libs/*: write its own wire schema under apps/sandbox/src/**/wire/.',
            },
            {
              group: ['**/libs/**'],
              message:
                'The sandbox imports nothing from libs/*: write its own wire schema under apps/sandbox/src/**/wire/.',
            },
          ],
        },
      ],
    },
  },
  {
    // One clock (issue 29): production code reads time through the injected Clock (libs/core/src/clock),
    // steady `now()` for intervals, `wallNow()` for an instant another party or a later process reads.
    files: ['apps/gateway/src/**/*.ts', 'libs/*/src/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/testing/**', 'libs/core/src/clock/clock.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='Date'][property.name='now']",
          message:
            'Read time through the injected Clock (libs/core/src/clock): clock.now() for intervals, clock.wallNow() for a timestamp; systemClock where nothing is injected.',
        },
      ],
    },
  },
  {
    files: [
      'libs/core/src/config/**/*.ts',
      'test/**/*.ts',
      'bench/**/*.ts',
      'tools/**/*.ts',
      '**/*.spec.ts',
      '*.js',
      'tools/*.mjs',
    ],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: ['**/*.spec.ts', 'test/**/*.ts'],
    plugins: { jest },
    rules: {
      'jest/no-focused-tests': 'error',
      'jest/no-disabled-tests': 'error',
      'jest/expect-expect': 'off',
    },
  },
);
