import { restoreHarnessPriority } from './harness-priority.js';

// A worker's previous test file may have raised it (harness-priority.ts).
restoreHarnessPriority();
