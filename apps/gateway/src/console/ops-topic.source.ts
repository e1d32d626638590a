import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  MARKET_DATA_POLICY,
  type TopicFamily,
  type TopicSink,
  type TopicSource,
  TopicSourceRegistry,
} from '@lib/fanout';

import { OpsSnapshotService } from './ops-snapshot.js';

export const OPS_OVERVIEW_TOPIC = 'ops.overview';

/** The console's one topic: a slow console gets the latest snapshot only (market-data policy). */
export const OPS_TOPIC_FAMILY: TopicFamily = {
  syntax: OPS_OVERVIEW_TOPIC,
  scope: 'admin',
  account: false,
  policy: MARKET_DATA_POLICY,
  description: "this instance's ops view (the console's), a fresh snapshot every second while anyone watches.",
};
/** How often the console's topic gets a fresh snapshot while anyone watches it. */
const INTERVAL_MS = 1_000;

/**
 * The `ops.*` topic family (scope admin) that feeds the ops console: while anyone is subscribed, a
 * snapshot of this instance's view every second; nothing is computed while nobody watches. A slow
 * console gets the latest snapshot only (market-data policy).
 */
@Injectable()
export class OpsTopicSource implements TopicSource, OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(OpsTopicSource.name);
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly registry: TopicSourceRegistry,
    private readonly snapshots: OpsSnapshotService,
  ) {}

  onModuleInit(): void {
    this.registry.add(OPS_TOPIC_FAMILY, this);
  }

  async open(topic: string, sink: TopicSink): Promise<void> {
    if (topic !== OPS_OVERVIEW_TOPIC) throw new Error(`no such ops topic: ${topic}`);
    sink.snapshot(await this.snapshots.take());
    const timer = setInterval(() => {
      this.snapshots.take().then(
        (snapshot) => sink.snapshot(snapshot),
        (error: unknown) => this.logger.warn(`ops snapshot failed: ${String(error)}`),
      );
    }, INTERVAL_MS);
    timer.unref();
    this.timers.set(topic, timer);
  }

  close(topic: string): void {
    clearInterval(this.timers.get(topic));
    this.timers.delete(topic);
  }

  onModuleDestroy(): void {
    for (const topic of [...this.timers.keys()]) this.close(topic);
  }
}
