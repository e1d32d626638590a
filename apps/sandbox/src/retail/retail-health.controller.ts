import { Controller, Get } from '@nestjs/common';

import { RetailPublic } from './retail-auth.decorators.js';

/** Sandbox-only liveness probe of this surface (not an upstream route). */
@Controller('_sandbox/health')
@RetailPublic()
export class RetailHealthController {
  @Get()
  health(): { status: string } {
    return { status: 'up' };
  }
}
