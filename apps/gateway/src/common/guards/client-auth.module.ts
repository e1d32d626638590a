import { Global, Module } from '@nestjs/common';

import { ClientAuthGuard } from './client-auth.guard.js';

/**
 * The one ClientAuthGuard: global so the WebSocket upgrade authenticates with the same instance (and
 * the same failed-auth-per-IP buckets) as the HTTP routes.
 */
@Global()
@Module({
  exports: [ClientAuthGuard],
  providers: [ClientAuthGuard],
})
export class ClientAuthModule {}
