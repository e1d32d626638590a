import { Readable } from 'node:stream';

import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { NotFoundError } from '@lib/core';
import { JOURNAL_DATABASE, type JournalDatabase, type JournalRecord } from '@lib/journal';
import type { FastifyReply } from 'fastify';

import { CurrentClient, RequireScopes } from '../common/decorators/auth.decorators.js';
import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';
import { ZodParams, ZodQuery } from '../common/pipes/zod-params.js';
import { exportRange } from './journal-export.js';
import { UnknownRetailCalls } from './unknown-retail-calls.service.js';
import {
  ClordIdParamsSchema,
  IdempotencyKeyParamsSchema,
  type ExportQuery,
  ExportQuerySchema,
  type TimelineQuery,
  TimelineQuerySchema,
} from './order-journal.schemas.js';

const mayRead = (client: AuthenticatedClient, team: string | undefined): boolean =>
  client.scopes.has('admin') || team === client.team;

/**
 * Reading the order journal: an order's outcome by clordId (the lookup an UNKNOWN order's 202 points
 * to), its whole timeline by clordId or order id (admin, or the team that sent it), and an export of a
 * time range as JSON lines or CSV (admin).
 */
@ApiTags('orders')
@ApiBearerAuth()
@Controller()
export class OrderJournalController {
  constructor(
    @Inject(JOURNAL_DATABASE) private readonly store: JournalDatabase,
    private readonly retailCalls: UnknownRetailCalls,
  ) {}

  /** PENDING while the outcome is being resolved, then DONE with the answer the exchange gave. */
  @Get('orders/clord/:clordId')
  @RequireScopes('read:orders')
  async lookup(
    @CurrentClient() client: AuthenticatedClient,
    @ZodParams(ClordIdParamsSchema) { clordId }: { clordId: string },
  ) {
    const record = await this.store.keys.byClordId(clordId, client.scopes.has('admin') ? undefined : client.team);
    if (!record) throw new NotFoundError(`No order with clordId ${clordId} was sent by your team.`);
    const done = record.state === 'done';
    return {
      clordId,
      state: done ? 'DONE' : 'PENDING',
      ...(done ? { status: record.status, answer: JSON.parse(record.body ?? '{}') as unknown } : {}),
    };
  }

  /**
   * The outcome of any order-entering call (both surfaces; retail create, modify, cancel, cancel-all and
   * close-position have no clordId) by the Idempotency-Key the client sent it with: keys are the
   * client's own, so only that client reads them.
   */
  @Get('orders/key/:key')
  @RequireScopes('read:orders')
  async byKey(
    @CurrentClient() client: AuthenticatedClient,
    @ZodParams(IdempotencyKeyParamsSchema) { key }: { key: string },
  ) {
    const record = await this.store.keys.get(client.id, key);
    if (!record)
      throw new NotFoundError('No order call was sent with that Idempotency-Key by this client (or it expired).');
    const done = record.state === 'done';
    // A pending retail create or close-position says why it is not resolved yet (this instance's last look).
    const why = done ? undefined : this.retailCalls.why(client.id, key);
    return {
      key,
      operation: record.operation,
      state: done ? 'DONE' : 'PENDING',
      ...(done ? { status: record.status, answer: JSON.parse(record.body ?? '{}') as unknown } : {}),
      ...(why === undefined ? {} : { detail: why }),
    };
  }

  @Get('orders/timeline')
  @RequireScopes('read:orders')
  async timeline(
    @CurrentClient() client: AuthenticatedClient,
    @ZodQuery(TimelineQuerySchema) query: TimelineQuery,
  ): Promise<{ records: JournalRecord[] }> {
    const records = await this.store.journal.timeline(query);
    const sender = records.find((record) => record.team !== undefined)?.team;
    if (records.length === 0 || !mayRead(client, sender))
      throw new NotFoundError('No journal record of that order was made for your team.');
    return { records };
  }

  @Get('admin/journal/export')
  @RequireScopes('admin')
  exportRange(@Res() res: FastifyReply, @ZodQuery(ExportQuerySchema) query: ExportQuery): void {
    res
      .header(
        'content-type',
        query.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
      )
      .send(Readable.from(exportRange(this.store.journal, new Date(query.from), new Date(query.to), query.format)));
  }
}
