import { type Server, type ServerWritableStream, type ServiceDefinition, status as GrpcStatus } from '@grpc/grpc-js';

import type { ExchangeRequirement } from '../../exchange-authorization.js';
import type { ExchangeGrpcParts } from '../exchange-grpc.parts.js';
import { authenticateStream, refuse } from '../server-stream.js';
import { type ProtoRecord, epochMsOf, instrumentMessage } from '../wire/stream-records.js';
import type { LogRecord } from './drop-copy-log.js';
import { type LogView, LogStream, tokenPosition } from './log-stream.js';
import { executionsView, instrumentsView, positionsView, tradesView, type RecordFilter } from './drop-copy.views.js';

/** Any of the four requests as decoded; `resume` names the oneof member set. */
export interface DropCopyRequest {
  resume?: 'resumeToken' | 'resumeTime';
  resumeToken?: Buffer;
  resumeTime?: { seconds: string; nanos: number };
  symbols: string[];
  firms?: string[];
}

interface CallSpec {
  name: string;
  requirement: ExchangeRequirement;
  /** Scoped to the caller's firm (all but instrument parts, which is public). */
  firmScoped: boolean;
  view: (filter: RecordFilter) => LogView;
}

const DROP_COPY = { scope: 'read:dropcopy', accountScoped: true } as const;
const CALLS: CallSpec[] = [
  { name: 'CreateDropCopySubscription', requirement: DROP_COPY, firmScoped: true, view: executionsView },
  { name: 'CreateTradeCaptureReportSubscription', requirement: DROP_COPY, firmScoped: true, view: tradesView },
  {
    name: 'CreateInstrumentStateChangeSubscription',
    requirement: { scope: 'read:instruments', accountScoped: false },
    firmScoped: false,
    view: instrumentsView,
  },
  { name: 'CreatePositionChangeSubscription', requirement: DROP_COPY, firmScoped: true, view: positionsView },
];

/** Serves polymarket.v1.DropCopyAPI's four server-streaming calls from the retained log. */
export function addDropCopyService(server: Server, service: ServiceDefinition, parts: ExchangeGrpcParts): void {
  const handlers = Object.fromEntries(
    CALLS.map((spec) => [
      spec.name,
      (call: ServerWritableStream<DropCopyRequest, unknown>) => subscribe(parts, spec, call),
    ]),
  );
  server.addService(service, handlers);
}

function subscribe(
  parts: ExchangeGrpcParts,
  spec: CallSpec,
  call: ServerWritableStream<DropCopyRequest, unknown>,
): void {
  const refused = (reason: string) => parts.counters.count(`grpc.dropCopy.refused.${reason}`);
  const caller = authenticateStream(parts, call, spec.requirement, refused);
  if (!caller) return;
  const { request } = call;
  const firm = `firms/${caller.client.firm}`;
  const foreign = (request.firms ?? []).find((name) => name !== caller.client.firm && name !== firm);
  if (spec.firmScoped && foreign !== undefined) {
    refused('foreign_firm');
    return refuse(
      call,
      GrpcStatus.PERMISSION_DENIED,
      `permission denied: firm ${foreign} is not the caller's firm ${caller.client.firm}`,
    );
  }
  const backlog = backlogOf(parts, request);
  if (typeof backlog === 'object' && 'code' in backlog) {
    refused('resume');
    return refuse(call, backlog.code, backlog.details);
  }
  const filter: RecordFilter = { firm: spec.firmScoped ? firm : undefined, symbols: new Set(request.symbols) };
  const grpc = parts.config;
  const terms = {
    call: spec.name,
    firm: caller.client.firm,
    clientId: caller.client.clientId,
    maxStreams: grpc.maxStreamsPerFirm,
    batchSize: grpc.dropCopyBatchSize,
    heartbeatMs: parts.dropCopy.heartbeatMs,
  };
  const stream = new LogStream(
    call,
    parts.streams,
    parts.dropCopy.log,
    spec.view(filter),
    () => parts.dropCopy.faults,
    terms,
  );
  if (
    spec.name === 'CreateDropCopySubscription' &&
    parts.streams.open({ call: spec.name, firm: caller.client.firm }) > 0
  ) {
    // upstream-facts: one drop-copy stream per firm and environment; counted so a gateway test can see a second one.
    parts.counters.count(`grpc.dropCopy.concurrent.${caller.client.firm}`);
  }
  stream.open(
    spec.name === 'CreateInstrumentStateChangeSubscription' ? undefined : backlog,
    snapshotOf(parts, spec, filter),
  );
}

/** Instrument parts starts with the current parts of every carried instrument; the others have no snapshot. */
function snapshotOf(parts: ExchangeGrpcParts, spec: CallSpec, filter: RecordFilter): ProtoRecord[] | undefined {
  if (spec.name !== 'CreateInstrumentStateChangeSubscription') return undefined;
  return parts.engine
    .instruments()
    .filter((instrument) => filter.symbols.size === 0 || filter.symbols.has(instrument.symbol))
    .map(instrumentMessage);
}

/** The records to replay first: none without a resume point; a token the log no longer holds is refused. */
function backlogOf(
  parts: ExchangeGrpcParts,
  request: DropCopyRequest,
): LogRecord[] | undefined | { code: GrpcStatus; details: string } {
  const log = parts.dropCopy.log;
  if (request.resume === 'resumeTime' && request.resumeTime) return log.since(epochMsOf(request.resumeTime));
  if (request.resume !== 'resumeToken' || !request.resumeToken) return undefined;
  const position = tokenPosition(request.resumeToken, log.incarnation);
  if (position === undefined || position > log.head)
    return { code: GrpcStatus.INVALID_ARGUMENT, details: 'resume_token is not a token this exchange issued' };
  if (position < log.oldestResumable)
    return {
      code: GrpcStatus.OUT_OF_RANGE,
      details: 'resume_token is older than the retained log: resume by resume_time',
    };
  return log.after(position);
}
