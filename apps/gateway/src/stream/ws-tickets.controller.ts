import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type FieldError, ValidationError } from '@lib/core';
import { TopicSourceRegistry } from '@lib/fanout';

import { CurrentClient } from '../common/decorators/auth.decorators.js';
import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';
import { ZodBody } from '../common/pipes/zod-params.js';
import { type WsTicketRequest, WsTicketRequestSchema } from './ws-ticket.schema.js';
import { type IssuedTicket, WsTicketStore } from './ws-ticket.store.js';
import { allowanceEntryProblem } from './ws-topic-allowance.js';
import { WS_LIMITS } from './ws-protocol.js';

@ApiTags('streams')
@ApiBearerAuth()
@Controller('ws/tickets')
export class WsTicketsController {
  constructor(
    private readonly tickets: WsTicketStore,
    private readonly declared: TopicSourceRegistry,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: `A one-time ticket (valid ${WS_LIMITS.ticketTtlMs / 1000} s) for opening /ws?ticket=… from a browser, optionally narrowed to a list of topics and topic families`,
  })
  issue(
    @CurrentClient() client: AuthenticatedClient,
    @ZodBody(WsTicketRequestSchema) body: WsTicketRequest,
  ): Promise<IssuedTicket> {
    const errors = (body?.topics ?? []).flatMap((entry, i): FieldError[] => {
      const problem = allowanceEntryProblem(this.declared, entry);
      return problem ? [{ path: `body.topics.${i}`, message: problem }] : [];
    });
    if (errors.length > 0) throw new ValidationError(errors);
    return this.tickets.issue(client.id, body?.topics);
  }
}
