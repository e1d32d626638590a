import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { z } from 'zod';

import { MatchingEngine } from '../engine/index.js';
import { FaultBoard, type SandboxFaults } from '../shared/fault-board.js';
import { parseBody } from '../shared/parse-body.js';
import { ExchangePublic } from './exchange-auth.decorators.js';
import { InstrumentState } from './wire/exchange-request.wire.js';

const StateBody = z.strictObject({ state: InstrumentState, settlementPx: z.int().optional() });
const AnswerFaultBody = z.strictObject({
  every: z.int().min(1),
  drop: z.int().min(0),
  hold: z.int().min(0),
  holdMs: z.int().min(0),
});
const FaultsBody = z.strictObject({
  delayMs: z.record(z.string(), z.int().min(0)).optional(),
  answers: z.record(z.string(), AnswerFaultBody).optional(),
  lost: z.record(z.string(), z.int().min(0)).optional(),
  // The exchange runs what it received within its 5 s latency stopgap, or rejects it unprocessed.
  badGateway: z
    .record(z.string(), z.strictObject({ count: z.int().min(0), runAfterMs: z.int().min(0).max(5_000) }))
    .optional(),
});

/**
 * The operator's side of the exchange (not an upstream route), for tests: instrument state changes
 * and slow operations. Unauthenticated on purpose: the sandbox is a local test double.
 */
@Controller('_sandbox')
@ExchangePublic()
export class ExchangeAdminController {
  constructor(
    private readonly engine: MatchingEngine,
    private readonly faults: FaultBoard,
  ) {}

  /** Moves an instrument to a state with the engine's side effects (auction, expiry, settlement); unknown symbol 404. */
  @Post('instruments/:symbol/state')
  @HttpCode(200)
  setState(@Param('symbol') symbol: string, @Body() body: unknown): { symbol: string; state: string } {
    const { state, settlementPx } = parseBody(StateBody, body);
    this.engine.setState(symbol, state, settlementPx === undefined ? {} : { settlementPx });
    return { symbol, state };
  }

  /**
   * `{delayMs: {insertOrder: 2000}}` holds each named operation that long before it runs; 0 removes the delay.
   * `{answers: {insertOrder: {every: 20, drop: 2, hold: 1, holdMs: 5000}}}` loses or delays answers after it ran; `{answers: {}}` removes them.
   * `{lost: {insertOrder: 1}}` loses the next call's request before it runs (no order, no answer).
   * `{badGateway: {insertOrder: {count: 1, runAfterMs: 1000}}}` answers the next call 502 at once and runs it that much later.
   */
  @Post('exchange/faults')
  @HttpCode(200)
  setFaults(@Body() body: unknown): SandboxFaults {
    const { delayMs, answers, lost, badGateway } = parseBody(FaultsBody, body);
    return this.faults.set({
      ...(delayMs ? { exchangeDelayMs: delayMs } : {}),
      ...(answers ? { exchangeAnswerFaults: answers } : {}),
      ...(lost ? { exchangeLostRequests: lost } : {}),
      ...(badGateway ? { exchangeBadGateway: badGateway } : {}),
    });
  }
}
