import { Injectable } from '@nestjs/common';

/**
 * Whether a kill-switch run (halt-and-cancel, cancel-on-disconnect, the dead-man's switch) is sending
 * its cancels on this instance. Only then do ordinary cancels leave the cancel bucket's priority lane
 * (take-plan.ts PRIORITY_LANE) to it; at any other time a cancel may spend the whole bucket, so no
 * gateway rule holds an ordinary cancel back while no kill run needs the room.
 */
@Injectable()
export class PriorityLane {
  private runs = 0;

  get inUse(): boolean {
    return this.runs > 0;
  }

  async during<T>(work: () => Promise<T>): Promise<T> {
    this.runs++;
    try {
      return await work();
    } finally {
      this.runs--;
    }
  }
}
