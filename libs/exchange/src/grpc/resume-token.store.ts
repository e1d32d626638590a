import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Where a resume token survives a restart in single-instance mode: a file. (With Redis the token is
 * the topic's checkpoint, stored by the fan-out's publish script with the batch it came with.) Saves
 * are serialized and coalesced: the newest token waiting is written after the write in flight, never
 * an older one after a newer.
 */
export class ResumeTokenStore {
  private writing = false;
  private next?: string;
  /** Epoch ms of the last token durably saved, for the age metric. */
  savedAt?: number;

  constructor(
    private readonly file: string,
    private readonly now: () => number,
    private readonly warn: (message: string) => void,
  ) {}

  /** The saved checkpoint text (see resume-checkpoint.ts), or undefined. */
  load(): string | undefined {
    try {
      const text = readFileSync(this.file, 'utf8').trim();
      return text || undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        this.warn(`resume token not read (${(error as Error).message}); resuming live only`);
      return undefined;
    }
  }

  save(checkpoint: string): void {
    this.next = checkpoint;
    if (!this.writing) void this.drain();
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.next) {
      const checkpoint = this.next;
      this.next = undefined;
      try {
        await this.write(checkpoint);
        this.savedAt = this.now();
      } catch (error) {
        // The next batch's token is written instead; a restart meanwhile replays a little more (deduplicated).
        this.warn(`resume token not saved (${(error as Error).message})`);
      }
    }
    this.writing = false;
  }

  private async write(text: string): Promise<void> {
    mkdirSync(dirname(this.file), { recursive: true });
    const temporary = `${this.file}.tmp`;
    writeFileSync(temporary, text);
    renameSync(temporary, this.file);
  }
}
