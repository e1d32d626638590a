import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { CATALOG_ROUTE_NAMES, CatalogClient, type CatalogRouteName } from '@lib/catalog';
import { z } from 'zod';

import { RequireScopes } from '../common/decorators/auth.decorators.js';
import { ZodBody } from '../common/pipes/zod-params.js';

const PurgeBodySchema = z
  .object({
    route: z.enum(CATALOG_ROUTE_NAMES as [CatalogRouteName, ...CatalogRouteName[]]).optional(),
    /** A prefix of the upstream path and query, e.g. `/v1/markets/aec-nfl-buf-kc-2026-11-22`. */
    prefix: z.string().startsWith('/').max(1_024).optional(),
  })
  .strict()
  .refine((body) => body.route !== undefined || body.prefix !== undefined, 'name a route, a prefix or both');

/** Drops catalog cache entries everywhere: the shared store and every instance's local copies. */
@ApiTags('admin')
@ApiBearerAuth()
@Controller('admin/catalog')
@RequireScopes('admin')
export class CatalogAdminController {
  constructor(private readonly catalog: CatalogClient) {}

  @Post('purge')
  @HttpCode(200)
  async purge(
    @ZodBody(PurgeBodySchema) body: z.infer<typeof PurgeBodySchema>,
  ): Promise<{ purged: { shared: number; local: number } }> {
    return { purged: await this.catalog.purge(body) };
  }
}
