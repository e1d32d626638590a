export type FrameType = 'snapshot' | 'update' | 'resync';

/** What every client receives, for every topic: the upstream payload under `data`, unchanged. */
export interface FrameMessage<T = unknown> {
  type: FrameType;
  topic: string;
  /** The holding that numbered the frame (see TopicState.epoch): seq compares only within one epoch. */
  epoch: string;
  seq: number;
  /** Gateway time (ms since epoch) when the holder of the topic received the data. */
  ts: number;
  data: T;
}

/** One serialized frame, shared by every client of the topic: it is encoded once, never per client. */
export interface WireFrame {
  readonly topic: string;
  readonly type: FrameType;
  readonly seq: number;
  /** The JSON text, as published to other instances. */
  readonly json: string;
  /** The complete WebSocket text frame (header + JSON), written to every socket as is. */
  readonly wire: Buffer;
  /** `performance.now()` when the data reached this process, for the delivery-lag histogram. */
  readonly receivedAt: number;
}

export function encodeFrame(message: FrameMessage, receivedAt = performance.now()): WireFrame {
  const json = JSON.stringify(message);
  return {
    topic: message.topic,
    type: message.type,
    seq: message.seq,
    json,
    wire: wsTextFrame(Buffer.from(json)),
    receivedAt,
  };
}

/**
 * A frame received from another instance keeps its exact bytes, so clients everywhere get the same
 * text. `receivedAtOf` maps its `ts` to local `performance.now()` time, so lag includes the relay hop.
 */
export function decodeRelayed(
  json: Buffer,
  receivedAtOf: (ts: number) => number,
): { frame: WireFrame; message: FrameMessage } {
  const text = json.toString('utf8');
  const message = JSON.parse(text) as FrameMessage;
  const frame = {
    topic: message.topic,
    type: message.type,
    seq: message.seq,
    json: text,
    wire: wsTextFrame(json),
    receivedAt: receivedAtOf(message.ts),
  };
  return { frame, message };
}

/**
 * An unmasked, final, uncompressed text frame (RFC 6455 §5.2), as a server sends it. Building it once
 * per topic lets the hub write one Buffer per client instead of letting `ws` frame it per client.
 */
export function wsTextFrame(payload: Buffer): Buffer {
  const length = payload.length;
  const headerLength = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(headerLength + length);
  frame[0] = 0x81; // FIN + opcode 1 (text)
  if (length < 126) {
    frame[1] = length;
  } else if (length < 65_536) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(length), 2);
  }
  payload.copy(frame, headerLength);
  return frame;
}
