import { readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

import {
  type GrpcObject,
  type ServiceClientConstructor,
  type ServiceDefinition,
  loadPackageDefinition,
} from '@grpc/grpc-js';
import { type Options, loadSync } from '@grpc/proto-loader';

/** The published package and service names (upstream-facts); file names and layout are not relied on. */
export const PUBLISHED_SERVICES = {
  marketData: 'polymarket.v1.MarketDataSubscriptionAPI',
  orderEntry: 'polymarket.v1.OrderEntryAPI',
  dropCopy: 'polymarket.v1.DropCopyAPI',
} as const;

export type PublishedService = keyof typeof PUBLISHED_SERVICES;

/**
 * The sandbox's own decoding: camelCase fields like the REST records, int64 as decimal strings,
 * enum names, defaults filled in, `oneofs` naming the member that is set. Written here rather than
 * shared with the gateway so the sandbox judges the gateway's decoding independently.
 */
const LOAD_OPTIONS: Options = { keepCase: false, longs: String, enums: String, defaults: true, oneofs: true };

export type ExchangeServices = Record<PublishedService, ServiceDefinition>;

/**
 * Loads every `.proto` under `protoDir` at run time and finds the exchange's services by their
 * published names, so an operator can drop the official files in whatever their file layout.
 */
export function loadExchangeServices(protoDir: string): ExchangeServices {
  const tree = loadTree(protoDir);
  const entries = Object.entries(PUBLISHED_SERVICES).map(([key, name]) => [key, lookupService(tree, name).service]);
  return Object.fromEntries(entries) as ExchangeServices;
}

/** A client constructor for one published service (tests and tools act as exchange clients with it). */
export function exchangeClient(protoDir: string, service: PublishedService): ServiceClientConstructor {
  return lookupService(loadTree(protoDir), PUBLISHED_SERVICES[service]);
}

function loadTree(protoDir: string): GrpcObject {
  const root = resolve(protoDir);
  const files = protoFiles(root).map((file) => relative(root, file));
  if (files.length === 0) throw new Error(`no .proto files under ${protoDir}`);
  return loadPackageDefinition(loadSync(files, { ...LOAD_OPTIONS, includeDirs: [root] }));
}

function protoFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return protoFiles(path);
    return entry.isFile() && entry.name.endsWith('.proto') ? [path] : [];
  });
}

function lookupService(tree: GrpcObject, name: string): ServiceClientConstructor {
  let node: GrpcObject[string] | undefined = tree;
  // Package levels are plain objects; a message type (has `format`) or a service ends the walk.
  for (const part of name.split('.'))
    node = typeof node === 'object' && node !== null && !('format' in node) ? (node as GrpcObject)[part] : undefined;
  if (typeof node !== 'function' || !('service' in node)) throw new Error(`the protos define no service ${name}`);
  return node;
}
