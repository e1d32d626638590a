import { raiseHarnessPriority } from './harness-priority.js';

raiseHarnessPriority();
