import { type Server, type ServerWritableStream, type ServiceDefinition, status as GrpcStatus } from '@grpc/grpc-js';

import { participantsOf } from '../../shared/exchange-clients.js';
import type { ExchangeGrpcParts } from './exchange-grpc.parts.js';
import { OrderStream } from './order.stream.js';
import { authenticateStream, refuse } from './server-stream.js';
import type { ProtoRecord } from './wire/stream-records.js';

/** polymarket.v1 CreateOrderSubscriptionRequest as decoded. */
export interface OrderSubscriptionRequest {
  symbols: string[];
  accounts: string[];
  snapshotOnly: boolean;
}

/** Serves polymarket.v1.OrderEntryAPI's order stream (scope read:orders, account-scoped). */
export function addOrderEntryService(server: Server, service: ServiceDefinition, parts: ExchangeGrpcParts): void {
  server.addService(service, {
    CreateOrderSubscription: (call: ServerWritableStream<OrderSubscriptionRequest, ProtoRecord>) =>
      subscribe(parts, call),
  });
}

function subscribe(parts: ExchangeGrpcParts, call: ServerWritableStream<OrderSubscriptionRequest, ProtoRecord>): void {
  const refused = (reason: string) => parts.counters.count(`grpc.orders.refused.${reason}`);
  const caller = authenticateStream(parts, call, { scope: 'read:orders', accountScoped: true }, refused);
  if (!caller) return;
  const { request } = call;
  // Empty: the account of the participant the call acts for. Every named account is checked against the firm.
  const accounts = request.accounts.length > 0 ? [...new Set(request.accounts)] : [caller.participant!];
  const ownAccounts = participantsOf(caller.client);
  const foreign = accounts.find((account) => !ownAccounts.includes(account));
  if (foreign !== undefined) {
    refused('foreign_account');
    return refuse(
      call,
      GrpcStatus.PERMISSION_DENIED,
      `permission denied: account ${foreign} is not an account of firm ${caller.client.firm}`,
    );
  }
  const known = new Set(parts.engine.instruments().map((instrument) => instrument.symbol));
  const unknown = request.symbols.filter((symbol) => !known.has(symbol));
  if (unknown.length > 0) {
    refused('invalid_argument');
    return refuse(
      call,
      GrpcStatus.INVALID_ARGUMENT,
      `unknown symbol${unknown.length > 1 ? 's' : ''}: ${unknown.slice(0, 5).join(', ')}`,
    );
  }
  const terms = {
    firm: caller.client.firm,
    clientId: caller.client.clientId,
    accounts,
    symbols: new Set(request.symbols),
    maxStreams: parts.config.maxStreamsPerFirm,
    heartbeatMs: parts.dropCopy.heartbeatMs,
  };
  new OrderStream(call, parts.streams, parts.engine, terms).open(request.snapshotOnly);
}
