import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { z } from 'zod';

import { ExchangeClients } from '../shared/exchange-clients.js';
import { FaultBoard, type SandboxFaults } from '../shared/fault-board.js';
import { parseBody } from '../shared/parse-body.js';
import { SandboxClock } from '../shared/sandbox-clock.js';
import { SandboxCounters } from '../shared/sandbox-counters.js';

const ClockBody = z.object({ skewMs: z.number().int() }).strict();
const KeyBody = z.object({ publicKeyPem: z.string().min(1) }).strict();
const FaultsBody = z
  .object({ authDown: z.boolean(), latencyRejectNext: z.number().int().min(0) })
  .partial()
  .strict();

interface ClientKeys {
  clientId: string;
  /** SHA-256 of each registered public key (SPKI DER); key material itself is never returned. */
  fingerprints: string[];
}

/**
 * The operator's side of the sandbox (not an upstream route): clock skew, key rotation, faults and
 * counters. Unauthenticated on purpose: the sandbox is a local test double on a loopback port.
 */
@Controller('_sandbox')
export class SandboxAdminController {
  constructor(
    private readonly clock: SandboxClock,
    private readonly exchangeClients: ExchangeClients,
    private readonly faults: FaultBoard,
    private readonly counts: SandboxCounters,
  ) {}

  @Post('clock')
  @HttpCode(200)
  setClock(@Body() body: unknown): { skewMs: number } {
    this.clock.skewMs = parseBody(ClockBody, body).skewMs;
    return { skewMs: this.clock.skewMs };
  }

  @Get('exchange/clients/:clientId/keys')
  keys(@Param('clientId') clientId: string): ClientKeys {
    return { clientId, fingerprints: this.exchangeClients.fingerprints(clientId) };
  }

  @Post('exchange/clients/:clientId/keys')
  addKey(@Param('clientId') clientId: string, @Body() body: unknown): ClientKeys & { fingerprint: string } {
    const fingerprint = this.exchangeClients.addKey(clientId, parseBody(KeyBody, body).publicKeyPem);
    return { fingerprint, ...this.keys(clientId) };
  }

  @Delete('exchange/clients/:clientId/keys/:fingerprint')
  removeKey(@Param('clientId') clientId: string, @Param('fingerprint') fingerprint: string): ClientKeys {
    this.exchangeClients.removeKey(clientId, fingerprint);
    return this.keys(clientId);
  }

  @Post('faults')
  @HttpCode(200)
  setFaults(@Body() body: unknown): SandboxFaults {
    return this.faults.set(parseBody(FaultsBody, body));
  }

  @Get('counters')
  counters(): { counters: Record<string, number> } {
    return { counters: this.counts.snapshot() };
  }
}
