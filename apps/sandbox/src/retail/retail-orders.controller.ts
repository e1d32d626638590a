import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';

import { MatchingEngine } from '../engine/index.js';
import { parseBody } from '../shared/parse-body.js';
import { RetailKeyId } from './retail-auth.decorators.js';
import { RetailOrderDesk } from './retail-order-desk.js';
import { RetailRoute } from './retail-rate-limit.guard.js';
import { RetailRecords } from './retail-records.js';
import type { CreateOrderResponse, RetailOrder } from './wire/retail-records.wire.js';
import {
  CancelAllOrders,
  CancelOrder,
  ClosePosition,
  CreateOrder,
  ModifyOrder,
  OpenOrdersQuery,
  PreviewOrder,
} from './wire/retail-request.wire.js';

/** Retail order routes (upstream-facts "Retail base, signed"); POSTs answer 200 like the upstream's gRPC gateway. */
@Controller('v1')
export class RetailOrdersController {
  constructor(
    private readonly engine: MatchingEngine,
    @Inject(RetailOrderDesk) private readonly desk: RetailOrderDesk,
    @Inject(RetailRecords) private readonly records: RetailRecords,
  ) {}

  @Post('orders')
  @HttpCode(200)
  @RetailRoute('createOrder', 'create')
  create(@RetailKeyId() keyId: string, @Body() body: unknown): Promise<CreateOrderResponse> {
    return this.desk.create(keyId, parseBody(CreateOrder, body));
  }

  @Post('order/preview')
  @HttpCode(200)
  @RetailRoute('previewOrder')
  preview(@RetailKeyId() keyId: string, @Body() body: unknown): { order: RetailOrder } {
    return this.desk.preview(keyId, parseBody(PreviewOrder, body));
  }

  @Post('order/close-position')
  @HttpCode(200)
  @RetailRoute('closePosition', 'closePosition')
  closePosition(@RetailKeyId() keyId: string, @Body() body: unknown): Promise<CreateOrderResponse> {
    return this.desk.closePosition(keyId, parseBody(ClosePosition, body));
  }

  @Post('order/:id/cancel')
  @HttpCode(200)
  @RetailRoute('cancelOrder', 'cancel')
  cancel(@RetailKeyId() keyId: string, @Param('id') id: string, @Body() body: unknown): object {
    return this.desk.cancel(keyId, id, parseBody(CancelOrder, body));
  }

  @Post('order/:id/modify')
  @HttpCode(200)
  @RetailRoute('modifyOrder', 'modify')
  modify(@RetailKeyId() keyId: string, @Param('id') id: string, @Body() body: unknown): object {
    return this.desk.modify(keyId, id, parseBody(ModifyOrder, body));
  }

  @Post('orders/open/cancel')
  @HttpCode(200)
  @RetailRoute('cancelAllOrders', 'cancelAll')
  cancelAll(@RetailKeyId() keyId: string, @Body() body: unknown): { canceledOrderIds: string[] } {
    return this.desk.cancelAll(keyId, parseBody(CancelAllOrders, body ?? {}));
  }

  @Get('orders/open')
  @RetailRoute('openOrders', 'openOrders')
  open(@RetailKeyId() keyId: string, @Query() query: unknown): { orders: RetailOrder[] } {
    const { slugs } = parseBody(OpenOrdersQuery, query);
    return { orders: this.engine.openOrders(keyId, slugs ?? []).map((order) => this.records.order(order)) };
  }

  @Get('order/:id')
  @RetailRoute('getOrder', 'getOrder')
  order(@RetailKeyId() keyId: string, @Param('id') id: string): { order: RetailOrder } {
    return { order: this.records.order(this.desk.ownOrder(keyId, id)) };
  }
}
