export { RateLimitModule } from './ratelimit.module.js';
