import { Module } from '@nestjs/common';
import { RateLimitModule } from '@lib/ratelimit';

import { RiskModule } from '../risk/risk.module.js';
import { ConsoleController } from './console.controller.js';
import { OpsSnapshotService } from './ops-snapshot.js';
import { OpsTopicSource } from './ops-topic.source.js';
import { RiskSnapshotService } from './risk-snapshot.js';

/** The ops console: its page at /console and the ops.* topics on /ws that feed it. */
@Module({
  controllers: [ConsoleController],
  imports: [RateLimitModule, RiskModule],
  providers: [OpsSnapshotService, OpsTopicSource, RiskSnapshotService],
})
export class ConsoleModule {}
