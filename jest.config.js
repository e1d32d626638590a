// ESM TypeScript under jest: swc transforms, Node's vm modules run them (docs/toolchain.md).
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'es6' },
  },
];

// A few CommonJS dependencies `require` packages that ship only ESM (content-disposition via
// @fastify/static, cookie via light-my-request). Node 20 can do that; jest's runtime cannot
// before Node 24.9, so those packages are compiled to CommonJS for the test run only.
const esmOnlyDeps = ['content-disposition', 'cookie'];
const swcCjs = ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }];

export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': swc,
    [`/node_modules/(${esmOnlyDeps.join('|')})/.+\\.js$`]: swcCjs,
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnlyDeps.join('|')})/)`],
  moduleNameMapper: {
    '^@lib/(.*)$': '<rootDir>/libs/$1/src/index.ts',
    '^@pm-gateway/client$': '<rootDir>/packages/client/src/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testMatch: [
    '<rootDir>/libs/**/*.spec.ts',
    '<rootDir>/packages/*/src/**/*.spec.ts',
    '<rootDir>/apps/**/*.spec.ts',
    '<rootDir>/test/**/*.test.ts',
  ],
  // Each test file starts at the run's nice value; one that spawns gateway processes raises itself above them: test/support/harness-priority.ts.
  setupFiles: ['<rootDir>/test/support/harness-priority.setup.ts'],
  globalSetup: '<rootDir>/test/support/redis-server.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // A stack's start (sandbox, gateway, PostgreSQL journal) takes 1 to 3 s on a quiet machine and passed 30 s
  // beside two busy loops (a loaded run, issue 29), and 60 s with a benchmark running too: a timeout is a hang's
  // bound, not a speed claim.
  testTimeout: 120000,
  maxWorkers: 2,
  // A worker keeps each file's ES module registry (vm modules), so its heap grows file by file: with 241
  // files on two workers one ran out of its 4.3 GB heap in CI (tour.test.ts, "Jest worker ran out of
  // memory"). A worker past this after a file is replaced by a fresh one.
  workerIdleMemoryLimit: '1GB',
};
