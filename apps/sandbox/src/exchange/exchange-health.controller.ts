import { Controller, Get } from '@nestjs/common';

/** spec §4.1: GET /v1/health needs no authentication. */
@Controller('v1/health')
export class ExchangeHealthController {
  @Get()
  health(): { status: string } {
    return { status: 'SERVING' };
  }
}
