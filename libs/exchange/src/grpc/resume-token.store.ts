import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

import type { RedisClient } from '@lib/core';

/**
 * Where the drop-copy resume token survives a restart or a takeover: Redis when configured (any
 * instance that takes the topic over reads it), else a file. Saves are serialized and coalesced: the
 * newest token waiting is written after the write in flight, never an older one after a newer.
 */
export class ResumeTokenStore {
  private writing = false;
  private next?: Buffer;
  /** Epoch ms of the last token durably saved, for the age metric. */
  savedAt?: number;

  constructor(
    private readonly place: { redis: RedisClient; key: string } | { file: string },
    private readonly now: () => number,
    private readonly warn: (message: string) => void,
  ) {}

  async load(): Promise<Buffer | undefined> {
    try {
      const text = 'redis' in this.place ? await this.place.redis.get(this.place.key) : readFileSync(this.place.file, 'utf8');
      return text ? Buffer.from(text.trim(), 'base64') : undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.warn(`drop-copy resume token not read (${(error as Error).message}); resuming live only`);
      return undefined;
    }
  }

  save(token: Buffer): void {
    this.next = token;
    if (!this.writing) void this.drain();
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.next) {
      const token = this.next;
      this.next = undefined;
      try {
        await this.write(token.toString('base64'));
        this.savedAt = this.now();
      } catch (error) {
        // The next batch's token is written instead; a restart meanwhile replays a little more (deduplicated).
        this.warn(`drop-copy resume token not saved (${(error as Error).message})`);
      }
    }
    this.writing = false;
  }

  private async write(text: string): Promise<void> {
    if ('redis' in this.place) {
      await this.place.redis.set(this.place.key, text);
      return;
    }
    mkdirSync(dirname(this.place.file), { recursive: true });
    const temporary = `${this.place.file}.tmp`;
    writeFileSync(temporary, text);
    renameSync(temporary, this.place.file);
  }
}
