export { FanoutModule } from './fanout.module.js';
