import { Module } from '@nestjs/common';
import { CatalogModule } from '@lib/catalog';

import { CatalogAdminController } from './catalog-admin.controller.js';
import { CatalogEventsController } from './catalog-events.controller.js';
import { CatalogMarketsController } from './catalog-markets.controller.js';
import { CatalogResponder } from './catalog-responder.js';
import { CatalogSportsController } from './catalog-sports.controller.js';

/** `/catalog/v1|v2/*`: the catalog gateway's routes under their upstream paths, served through the cache. */
@Module({
  controllers: [CatalogAdminController, CatalogEventsController, CatalogMarketsController, CatalogSportsController],
  imports: [CatalogModule],
  providers: [CatalogResponder],
})
export class CatalogRoutesModule {}
