import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';

import { Public } from '../common/decorators/auth.decorators.js';
import { CONSOLE_CSP, CONSOLE_CSS, CONSOLE_HTML, CONSOLE_JS } from './console-page.js';
import { CONSOLE_RISK_JS } from './console-risk-page.js';

/**
 * The ops console's static page. Public because it holds no data: what it shows arrives over /ws on
 * the ops.overview topic, which needs scope admin (a ticket or an admin key typed into the page).
 */
@ApiExcludeController()
@Controller('console')
@Public()
export class ConsoleController {
  @Get()
  page(@Res() reply: FastifyReply): void {
    send(reply, 'text/html', CONSOLE_HTML);
  }

  @Get('console.js')
  script(@Res() reply: FastifyReply): void {
    send(reply, 'text/javascript', CONSOLE_JS);
  }

  @Get('console-risk.js')
  riskScript(@Res() reply: FastifyReply): void {
    send(reply, 'text/javascript', CONSOLE_RISK_JS);
  }

  @Get('console.css')
  style(@Res() reply: FastifyReply): void {
    send(reply, 'text/css', CONSOLE_CSS);
  }
}

function send(reply: FastifyReply, type: string, body: string): void {
  void reply
    .header('content-type', `${type}; charset=utf-8`)
    .header('content-security-policy', CONSOLE_CSP)
    .header('cache-control', 'no-cache')
    .header('x-content-type-options', 'nosniff')
    .send(body);
}
