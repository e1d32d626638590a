import { resolve } from 'node:path';

import {
  type GrpcObject,
  type MethodDefinition,
  type ServiceClientConstructor,
  loadPackageDefinition,
} from '@grpc/grpc-js';
import { type Options, loadSync } from '@grpc/proto-loader';

export { DEFAULT_PROTO_DIR } from '../config/exchange.config.js';

import type {
  MarketDataResponseMessage,
  MarketDataStreamRequest,
  MarketDataSubscriptionRequest,
} from './market-data.messages.js';

export const MARKET_DATA_PROTO_FILE = 'polymarket/v1/market_data.proto';
export const MARKET_DATA_SERVICE = 'polymarket.v1.MarketDataSubscriptionAPI';

/**
 * One decoding for gateway and sandbox. camelCase (keepCase false) so stream payloads read like the
 * exchange's REST records; int64 as strings like REST (no precision loss past 2^53); enum names;
 * defaults on, so a receiver never tests for absent scalars; `oneofs` names the set `event` member.
 */
export const PROTO_LOAD_OPTIONS: Options = {
  keepCase: false,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
};

export interface MarketDataProto {
  /** Client constructor; its `service` is what a server adds. */
  Client: ServiceClientConstructor;
  subscribe: MethodDefinition<MarketDataSubscriptionRequest, MarketDataResponseMessage>;
  /** Absent from protos that lack it: the server-streaming call is used instead. */
  bidirectional?: MethodDefinition<MarketDataStreamRequest, MarketDataResponseMessage>;
}

/**
 * Loads the market-data service from `protoDir` at run time: the official protos are private
 * (upstream-facts), so an operator replaces this project's reconstruction by dropping files in.
 */
export function loadMarketDataProto(protoDir: string): MarketDataProto {
  const Client = loadExchangeService(protoDir, MARKET_DATA_PROTO_FILE, MARKET_DATA_SERVICE);
  const subscribe = Client.service.CreateMarketDataSubscription;
  if (!subscribe?.responseStream)
    throw new Error(`${MARKET_DATA_SERVICE} in ${protoDir} has no server-streaming CreateMarketDataSubscription`);
  const bidirectional = Client.service.BiDirectionalStreamMarketData;
  return {
    Client,
    subscribe,
    bidirectional: bidirectional?.requestStream && bidirectional.responseStream ? bidirectional : undefined,
  };
}

/** Any exchange service from `file` under `protoDir`, found by its package and service name. */
export function loadExchangeService(protoDir: string, file: string, service: string): ServiceClientConstructor {
  const definition = loadSync(file, { ...PROTO_LOAD_OPTIONS, includeDirs: [resolve(protoDir)] });
  return lookupService(loadPackageDefinition(definition), service);
}

function lookupService(root: GrpcObject, name: string): ServiceClientConstructor {
  let node: GrpcObject[string] | undefined = root;
  // Package levels are plain GrpcObjects; a type or a service ends the walk.
  for (const part of name.split('.')) node = isPackage(node) ? node[part] : undefined;
  if (!isService(node)) throw new Error(`the protos define no service ${name}`);
  return node;
}

function isPackage(node: GrpcObject[string] | undefined): node is GrpcObject {
  return typeof node === 'object' && node !== null && !('format' in node);
}

function isService(node: GrpcObject[string] | undefined): node is ServiceClientConstructor {
  return typeof node === 'function' && 'service' in node;
}
