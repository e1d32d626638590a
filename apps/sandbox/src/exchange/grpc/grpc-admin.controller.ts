import { Body, Controller, Get, HttpCode, Inject, Post } from '@nestjs/common';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { z } from 'zod';

import { ExchangePublic } from '../exchange-auth.decorators.js';
import { parseBody } from '../../shared/parse-body.js';
import { SANDBOX_STATE, type SandboxState } from '../../shared/sandbox-state.js';
import type { DeliveryFaults } from './dropcopy/log-stream.js';

/** A cut is UNAVAILABLE (restart, disconnect) or UNAUTHENTICATED (the operator revoked the key). */
const CUT_CODES = { UNAVAILABLE: GrpcStatus.UNAVAILABLE, UNAUTHENTICATED: GrpcStatus.UNAUTHENTICATED } as const;
const CutBody = z.strictObject({
  code: z.enum(['UNAVAILABLE', 'UNAUTHENTICATED']),
  call: z.string().optional(),
  firm: z.string().optional(),
  clientId: z.string().optional(),
});
const DropCopyFaultsBody = z.strictObject({ delayMs: z.int().min(0).optional(), duplicate: z.boolean().optional() });

/**
 * The operator's side of the gRPC streams (not an upstream route), on the exchange surface: open
 * streams by call and firm, cutting streams, and drop-copy delivery faults. Unauthenticated on
 * purpose: the sandbox is a local test double.
 */
@Controller('_sandbox/grpc')
@ExchangePublic()
export class GrpcAdminController {
  constructor(@Inject(SANDBOX_STATE) private readonly state: SandboxState) {}

  @Get('streams')
  streams(): { open: number; byCall: Record<string, number>; byFirm: Record<string, number> } {
    return { open: this.state.streams.open(), ...this.state.streams.view() };
  }

  /** Ends the matching open streams (all when no filter) with the code; `{cut: n}`. */
  @Post('streams/cut')
  @HttpCode(200)
  cut(@Body() body: unknown): { cut: number } {
    const { code, ...filter } = parseBody(CutBody, body);
    const details = code === 'UNAUTHENTICATED' ? 'unauthenticated: the access key was revoked' : 'the stream service restarted';
    return { cut: this.state.streams.cut(filter, CUT_CODES[code], details) };
  }

  /**
   * The stream service restarts empty: the drop-copy log forgets every record and every token it
   * issued (a resume with one is refused INVALID_ARGUMENT), and every open stream ends UNAVAILABLE.
   */
  @Post('dropcopy/restart')
  @HttpCode(200)
  restartDropCopy(): { cut: number } {
    this.state.dropCopy.log.restart();
    return { cut: this.state.streams.cut({}, GrpcStatus.UNAVAILABLE, 'the stream service restarted') };
  }

  /** `{delayMs: 500, duplicate: true}` holds and doubles every drop-copy batch from now on; 0/false lift them. */
  @Post('dropcopy/faults')
  @HttpCode(200)
  dropCopyFaults(@Body() body: unknown): DeliveryFaults {
    return Object.assign(this.state.dropCopy.faults, parseBody(DropCopyFaultsBody, body));
  }
}
