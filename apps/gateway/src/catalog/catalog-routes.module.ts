import { Module } from '@nestjs/common';
import { CatalogModule } from '@lib/catalog';

import { CatalogAdminController } from './catalog-admin.controller.js';
import { CatalogFastPath } from './catalog-fast-path.js';
import { CatalogHttpRoutes } from './catalog-http-routes.js';
import { CatalogResponder } from './catalog-responder.js';

/** `/catalog/v1|v2/*`: the catalog gateway's routes under their upstream paths, served through the cache. */
@Module({
  controllers: [CatalogAdminController],
  imports: [CatalogModule],
  exports: [CatalogFastPath],
  providers: [CatalogFastPath, CatalogHttpRoutes, CatalogResponder],
})
export class CatalogRoutesModule {}
