import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { z } from 'zod';

import { type BatchItem, MatchingEngine, type OrderResult, engineErrorStatus } from '../engine/index.js';
import { parseBody } from '../shared/parse-body.js';
import { SurfaceError } from '../shared/surface-error.js';
import { AccountScoped, Caller, ExchangeScope, Participant } from './exchange-auth.decorators.js';
import type { ExchangeCaller } from './exchange-authorization.js';
import { grpcCodeOf } from './exchange-error.filter.js';
import { ExchangeOperation } from './exchange-operation.decorator.js';
import { accountFor, ownerOf } from './firm-accounts.js';
import { checkBatchInsert, checkBatchReplace } from './trading-batch.checks.js';
import {
  BatchInsertRequest,
  BatchReplaceRequest,
  MAX_BATCH_ORDERS,
  OrderRequest,
  PreviewOrderRequest,
} from './wire/exchange-request.wire.js';
import {
  type ExecutionRecord,
  type OrderRecord,
  engineOrderRequest,
  engineReplaceRequest,
  executionRecord,
  orderRecord,
} from './wire/order-wire.js';

/** The cancel payload is not shown upstream; the sandbox takes the order by id or by the account's clordId. */
const CancelBody = z
  .strictObject({
    orderId: z.string().min(1).optional(),
    clordId: z.string().min(1).optional(),
    account: z.string().optional(),
    symbol: z.string().optional(),
  })
  .refine((body) => body.orderId !== undefined || body.clordId !== undefined, {
    message: 'orderId or clordId is required',
  });

/** Spec 4.1 /v1/trading/*: order entry on the shared engine, for the x-participant-id's firm. */
@Controller('v1/trading')
@AccountScoped()
export class TradingController {
  constructor(private readonly engine: MatchingEngine) {}

  @Post('orders')
  @HttpCode(200)
  @ExchangeScope('write:orders')
  @ExchangeOperation('insertOrder', 'order-entry')
  insert(
    @Caller() caller: ExchangeCaller,
    @Participant() participant: string,
    @Body() body: unknown,
  ): { orderId: string } {
    const request = parseBody(OrderRequest, body);
    const result = this.engine.insert(engineOrderRequest(request, accountFor(caller, request.account), participant));
    return { orderId: result.orderId };
  }

  /** Scope not shown upstream; read:orders ("preview orders") is the documented one. */
  @Post('orders/preview')
  @HttpCode(200)
  @ExchangeScope('read:orders')
  @ExchangeOperation('previewOrder')
  preview(
    @Caller() caller: ExchangeCaller,
    @Participant() participant: string,
    @Body() body: unknown,
  ): { previewOrder: OrderRecord } {
    const { request } = parseBody(PreviewOrderRequest, body);
    const preview = this.engine.preview(
      engineOrderRequest(request, accountFor(caller, request.account), participant, 'request.'),
    );
    return { previewOrder: orderRecord(preview.order) };
  }

  @Post('orders/list')
  @HttpCode(200)
  @ExchangeScope('write:orders')
  @ExchangeOperation('insertBatch', 'batch')
  insertBatch(
    @Caller() caller: ExchangeCaller,
    @Participant() participant: string,
    @Body() body: unknown,
  ): { responses: object[] } {
    assertBatchSize(body);
    const requests = parseBody(BatchInsertRequest, body).requests.map((request, i) =>
      engineOrderRequest(request, accountFor(caller, request.account), participant, `requests.${i}.`),
    );
    checkBatchInsert(this.engine, requests);
    return { responses: this.engine.insertBatch(requests).map((item) => batchAnswer(item)) };
  }

  @Post('orders/replace/list')
  @HttpCode(200)
  @ExchangeScope('write:orders')
  @ExchangeOperation('replaceBatch', 'batch')
  replaceBatch(@Caller() caller: ExchangeCaller, @Body() body: unknown): { responses: object[] } {
    assertBatchSize(body);
    const parsed = parseBody(BatchReplaceRequest, body).requests;
    const accounts = checkBatchReplace(this.engine, caller, parsed);
    const requests = parsed.map((request, i) => engineReplaceRequest(request, accounts[i], `requests.${i}.`));
    return { responses: this.engine.replaceBatch(requests).map((item) => batchAnswer(item)) };
  }

  /** Spec 4.1 records the route under two spellings. */
  @Get(['orders/open', 'open-orders'])
  @ExchangeScope('read:orders')
  @ExchangeOperation('openOrders')
  openOrders(@Participant() participant: string): { orders: OrderRecord[] } {
    return { orders: this.engine.openOrders(participant).map(orderRecord) };
  }

  @Post('orders/cancel')
  @HttpCode(200)
  @ExchangeScope('write:orders')
  @ExchangeOperation('cancelOrder', 'cancel')
  cancel(@Caller() caller: ExchangeCaller, @Body() body: unknown): { execution: ExecutionRecord } {
    const request = parseBody(CancelBody, body);
    const account = request.orderId
      ? ownerOf(this.engine, caller, request.orderId)
      : accountFor(caller, request.account);
    return {
      execution: executionRecord(this.engine.cancel({ account, orderId: request.orderId, clordId: request.clordId })),
    };
  }
}

/** Spec 4.1 and 8: more than 20 per batch is rejected, whatever the items hold. */
function assertBatchSize(body: unknown): void {
  const requests = (body as { requests?: unknown } | null)?.requests;
  if (Array.isArray(requests) && requests.length > MAX_BATCH_ORDERS) {
    throw new SurfaceError(413, `a batch takes at most ${MAX_BATCH_ORDERS} requests; got ${requests.length}`);
  }
}

/** One item of a batch: its order id, or the refusal in the gRPC-status shape of a whole error body. */
function batchAnswer(item: BatchItem<OrderResult>): object {
  if (item.ok) return { orderId: item.value.orderId };
  return { error: { code: grpcCodeOf(engineErrorStatus(item.error.code)), message: item.error.message, details: [] } };
}
