import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { z } from 'zod';

import { parseBody } from '../../shared/parse-body.js';
import { ExchangePublic } from '../exchange-auth.decorators.js';
import { type DeliveryFaults, DropCopyFeed } from './dropcopy/drop-copy-feed.js';
import { MarketDataStreamRegistry } from './market-data-stream.registry.js';
import { StreamPool } from './stream-pool.js';

/** A cut is UNAVAILABLE (restart, disconnect) or UNAUTHENTICATED (the operator revoked the key). */
const CUT_CODES = { UNAVAILABLE: GrpcStatus.UNAVAILABLE, UNAUTHENTICATED: GrpcStatus.UNAUTHENTICATED } as const;
const CutBody = z.strictObject({
  code: z.enum(['UNAVAILABLE', 'UNAUTHENTICATED']),
  call: z.string().optional(),
  firm: z.string().optional(),
  clientId: z.string().optional(),
});
const OutageBody = z.strictObject({
  down: z.boolean(),
  call: z.string().optional(),
  firm: z.string().optional(),
  clientId: z.string().optional(),
});
const DelistBody = z.strictObject({ symbol: z.string().min(1) });
const DropCopyFaultsBody = z.strictObject({ delayMs: z.int().min(0).optional(), duplicate: z.boolean().optional() });

/**
 * The operator's side of the gRPC streams (not an upstream route), on the exchange surface: open
 * streams by call and firm, cutting streams, and drop-copy delivery faults. Unauthenticated on
 * purpose: the sandbox is a local test double.
 */
@Controller('_sandbox/grpc')
@ExchangePublic()
export class GrpcAdminController {
  constructor(
    private readonly streamPool: StreamPool,
    private readonly dropCopy: DropCopyFeed,
    private readonly marketData: MarketDataStreamRegistry,
  ) {}

  @Get('streams')
  streams(): { open: number; byCall: Record<string, number>; byFirm: Record<string, number> } {
    return { open: this.streamPool.open(), ...this.streamPool.view() };
  }

  /** Ends the matching open streams (all when no filter) with the code; `{cut: n}`. */
  @Post('streams/cut')
  @HttpCode(200)
  cut(@Body() body: unknown): { cut: number } {
    const { code, ...filter } = parseBody(CutBody, body);
    const details =
      code === 'UNAUTHENTICATED' ? 'unauthenticated: the access key was revoked' : 'the stream service restarted';
    return { cut: this.streamPool.cut(filter, CUT_CODES[code], details) };
  }

  /**
   * `{down: true, call?, firm?, clientId?}`: the stream service is down for the matching calls (open
   * ones end UNAVAILABLE, new ones are refused UNAVAILABLE) until `{down: false}`; `{cut: n}`.
   */
  @Post('streams/outage')
  @HttpCode(200)
  outage(@Body() body: unknown): { cut: number } {
    const { down, ...filter } = parseBody(OutageBody, body);
    if (down) return { cut: this.streamPool.down(filter) };
    this.streamPool.up();
    return { cut: 0 };
  }

  /**
   * The stream service restarts empty: the drop-copy log forgets every record and every token it
   * issued (a resume with one is refused INVALID_ARGUMENT), and every open stream ends UNAVAILABLE.
   */
  @Post('dropcopy/restart')
  @HttpCode(200)
  restartDropCopy(): { cut: number } {
    this.dropCopy.log.restart();
    return { cut: this.streamPool.cut({}, GrpcStatus.UNAVAILABLE, 'the stream service restarted') };
  }

  /**
   * `{symbol}`: the market-data service stops knowing the symbol (delisted while streamed): streams
   * naming it end UNAVAILABLE, and requests naming it are refused INVALID_ARGUMENT; `{cut: n}`.
   */
  @Post('marketData/delist')
  @HttpCode(200)
  delist(@Body() body: unknown): { cut: number } {
    return { cut: this.marketData.delist(parseBody(DelistBody, body).symbol) };
  }

  /** `{delayMs: 500, duplicate: true}` holds and doubles every drop-copy batch from now on; 0/false lift them. */
  @Post('dropcopy/faults')
  @HttpCode(200)
  dropCopyFaults(@Body() body: unknown): DeliveryFaults {
    return Object.assign(this.dropCopy.faults, parseBody(DropCopyFaultsBody, body));
  }
}
