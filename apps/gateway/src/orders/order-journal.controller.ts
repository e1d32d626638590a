import { Readable } from 'node:stream';

import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { DomainError, NotFoundError } from '@lib/core';
import { JOURNAL_DATABASE, type JournalDatabase, type JournalRecord, provesOrder } from '@lib/journal';
import type { FastifyReply } from 'fastify';

import { CurrentClient, RequireScopes } from '../common/decorators/auth.decorators.js';
import type { AuthenticatedClient } from '../common/auth/authenticated-client.js';
import { ZodParams, ZodQuery } from '../common/pipes/zod-params.js';
import { exportRange } from './journal-export.js';
import { JournalReads } from './journal-reads.service.js';
import { UnknownRetailCalls } from './unknown-retail-calls.service.js';
import { JournalUnreadableError } from './order-safety.errors.js';
import { CREATING_OPERATIONS } from './order-call.js';
import { clordView, teamView } from './timeline-view.js';
import {
  ClordIdParamsSchema,
  IdempotencyKeyParamsSchema,
  type ExportQuery,
  ExportQuerySchema,
  type TimelineQuery,
  TimelineQuerySchema,
} from './order-journal.schemas.js';

/** A read of the journal's database: its outage is a 503 the client may retry, not a 500. */
async function fromJournal<T>(read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (error) {
    throw error instanceof DomainError ? error : new JournalUnreadableError(error);
  }
}

/**
 * Reading the order journal: a call's outcome by its key (the lookup an UNKNOWN order's 202 points to),
 * the outcome of the team's latest insert of a clordId, an order's whole timeline by clordId or order id
 * (admin, or the team that sent it), and an export of a time range as JSON lines or CSV (admin).
 */
@ApiTags('orders')
@ApiBearerAuth()
@Controller()
export class OrderJournalController {
  constructor(
    @Inject(JOURNAL_DATABASE) private readonly store: JournalDatabase,
    private readonly retailCalls: UnknownRetailCalls,
    private readonly reads: JournalReads,
  ) {}

  /** PENDING while the outcome is being resolved, then DONE with the answer the exchange gave. */
  @Get('orders/clord/:clordId')
  @RequireScopes('read:orders')
  async lookup(
    @CurrentClient() client: AuthenticatedClient,
    @ZodParams(ClordIdParamsSchema) { clordId }: { clordId: string },
  ) {
    const record = await fromJournal(
      this.reads.run(client.team, () =>
        this.store.keys.byClordId(clordId, CREATING_OPERATIONS, client.scopes.has('admin') ? undefined : client.team),
      ),
    );
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
    const record = await fromJournal(this.reads.run(client.team, () => this.store.keys.get(client.id, key)));
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
  ): Promise<{ records: JournalRecord[]; truncated?: true }> {
    const { records: all, truncated } = await fromJournal(
      this.reads.run(client.team, () => this.store.journal.timeline(query)),
    );
    // By order id, the query also follows the order's clordId, which another team may have used too: the
    // order is its sender's (the team an answer gave the order id to; a refused call naming the id proves
    // nothing), and its timeline holds only that team's records.
    const sender =
      query.orderId === undefined
        ? undefined
        : all.find((record) => record.orderId === query.orderId && provesOrder(record))?.team;
    const admin = client.scopes.has('admin');
    // Admin reads every record of a clordId, and an order's whole timeline; a team only its own records and its orders'.
    const teamRecords =
      query.clordId === undefined ? teamView(all, client.team) : clordView(all, client.team, query.clordId);
    const records = admin ? (sender === undefined ? all : teamView(all, sender)) : teamRecords;
    const owned = admin || query.orderId === undefined || sender === client.team;
    if (records.length === 0 || !owned)
      throw new NotFoundError('No journal record of that order was made for your team.');
    return truncated ? { records, truncated } : { records };
  }

  @Get('admin/journal/export')
  @RequireScopes('admin')
  async exportRange(@Res() res: FastifyReply, @ZodQuery(ExportQuerySchema) query: ExportQuery): Promise<void> {
    const pages = exportRange(this.store.journal, new Date(query.from), new Date(query.to), query.format);
    // The first page is read before the 200 goes out: a journal that cannot be read is a 503, not a cut stream.
    const first = await fromJournal(pages.next());
    res
      .header(
        'content-type',
        query.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
      )
      .send(Readable.from(prepended(first, pages)));
  }
}

/** The export's pages, the first of them already read. */
async function* prepended(
  first: IteratorResult<string, void>,
  rest: AsyncGenerator<string, void>,
): AsyncGenerator<string, void> {
  if (first.done) return;
  yield first.value;
  yield* rest;
}
