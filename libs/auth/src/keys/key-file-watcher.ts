import { type FSWatcher, type StatsListener, unwatchFile, watch, watchFile } from 'node:fs';
import { dirname } from 'node:path';

/** How long the files must be quiet before a reload: editors and secret mounts write in several steps. */
export const KEY_WATCH_DEBOUNCE_MS = 250;
/** Poll interval where the platform cannot watch a directory. */
const POLL_INTERVAL_MS = 2_000;

/**
 * Calls `onChange` once after a burst of changes to the key files. It watches their directories, not
 * the files: a rotation usually replaces the file (rename, or a Kubernetes `..data` symlink swap), and
 * a watch on the old file would never see it.
 */
export class KeyFileWatcher {
  private readonly watchers: FSWatcher[] = [];
  private readonly polled: Array<[string, StatsListener]> = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly files: readonly string[],
    private readonly onChange: () => void,
    private readonly debounceMs = KEY_WATCH_DEBOUNCE_MS,
  ) {}

  start(): void {
    for (const dir of new Set(this.files.map((file) => dirname(file)))) {
      try {
        const watcher = watch(dir, { persistent: false }, () => this.schedule());
        // A directory that disappears (unmounted secret) must not crash the process; polling takes over.
        watcher.on('error', () => this.pollFilesIn(dir));
        this.watchers.push(watcher);
      } catch {
        this.pollFilesIn(dir);
      }
    }
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const watcher of this.watchers.splice(0)) watcher.close();
    for (const [file, listener] of this.polled.splice(0)) unwatchFile(file, listener);
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.onChange();
    }, this.debounceMs);
    this.timer.unref();
  }

  private pollFilesIn(dir: string): void {
    for (const file of this.files.filter((f) => dirname(f) === dir)) {
      if (this.polled.some(([polled]) => polled === file)) continue;
      const listener: StatsListener = () => this.schedule();
      watchFile(file, { interval: POLL_INTERVAL_MS, persistent: false }, listener);
      this.polled.push([file, listener]);
    }
  }
}
