import { Server, ServerCredentials } from '@grpc/grpc-js';

import { addDropCopyService } from './dropcopy/drop-copy.grpc-service.js';
import type { ExchangeGrpcParts } from './exchange-grpc.parts.js';
import { addMarketDataService } from './market-data.grpc-service.js';
import { addOrderEntryService } from './order-entry.grpc-service.js';
import { loadExchangeServices } from './wire/proto-services.js';

export interface RunningExchangeGrpc {
  /** The bound port (the configured one, or the one the system chose for 0). */
  port: number;
  close(): void;
}

/** The exchange's gRPC server (plaintext): market data, the order stream and drop copy. */
export async function startExchangeGrpc(
  parts: ExchangeGrpcParts,
  host: string,
  port: number,
): Promise<RunningExchangeGrpc> {
  const server = new Server();
  const services = loadExchangeServices(parts.config.protoDir);
  addMarketDataService(server, services.marketData, parts);
  addOrderEntryService(server, services.orderEntry, parts);
  addDropCopyService(server, services.dropCopy, parts);
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${port}`, ServerCredentials.createInsecure(), (err, boundPort) =>
      err ? reject(err) : resolve(boundPort),
    ),
  );
  return { port: bound, close: () => server.forceShutdown() };
}
