import { Logger } from '@nestjs/common';
import type { FastifyAdapter } from '@nestjs/platform-fastify';

import type { CatalogFastPath, CompletedHit } from './catalog-fast-path.js';

/**
 * Puts the catalog's hit path in front of Fastify on the adapter's server. It must see the shutdown
 * Nest's adapter answers 503 for (`isShuttingDown`, a private field set first thing in app.close()):
 * where that field is not there, the hit path is left out and every request goes through Fastify.
 */
export function installCatalogFastPath(
  fastPath: CatalogFastPath,
  adapter: FastifyAdapter,
  completed: CompletedHit,
): boolean {
  const logger = new Logger('CatalogFastPath');
  if (typeof Reflect.get(adapter, 'isShuttingDown') !== 'boolean') {
    logger.warn("the Fastify adapter has no 'isShuttingDown' flag: catalog hits go through Fastify");
    return false;
  }
  const installed = fastPath.install(
    adapter.getInstance().server,
    completed,
    () => Reflect.get(adapter, 'isShuttingDown') === true,
  );
  if (!installed) logger.warn("the server has more than one 'request' listener: catalog hits go through Fastify");
  return installed;
}
