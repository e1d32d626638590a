import { type ChannelCredentials, credentials } from '@grpc/grpc-js';
import type { ExchangeConfigView } from '../config/exchange.config.js';

/** Where the environment's exchange gRPC services are, and the protos to reach them with. */
export interface GrpcTarget {
  target: string;
  credentials: ChannelCredentials;
  protoDir: string;
}

export function grpcTargetOf(config: ExchangeConfigView): GrpcTarget {
  const environment = config.environments[config.environment]!;
  return {
    target: environment.grpcTarget,
    credentials: environment.grpcTls ? credentials.createSsl() : credentials.createInsecure(),
    protoDir: config.exchange.protoDir,
  };
}
