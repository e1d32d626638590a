import { Controller, Get } from '@nestjs/common';

/** Sandbox-only liveness probe of this surface (not an upstream route). */
@Controller('_sandbox/health')
export class RetailHealthController {
  @Get()
  health(): { status: string } {
    return { status: 'up' };
  }
}
