/**
 * Redis key names. Every key of the limiter carries one hash tag, so all buckets of a request (and the
 * scripts touching several of them) stay in one Redis Cluster slot: `{pmgw}:rl:retail.all`.
 */
export class BudgetKeys {
  readonly prefix: string;

  constructor(keyPrefix: string) {
    const tag = keyPrefix.replace(/[{}]/g, '').replace(/:+$/, '') || 'pmgw';
    this.prefix = `{${tag}}:rl:`;
  }

  tat(cellKey: string): string {
    return this.prefix + cellKey;
  }

  coolDown(bucketKey: string): string {
    return `${this.prefix}${bucketKey}:cool`;
  }

  instances(): string {
    return `${this.prefix}instances`;
  }

  /** The budget's generation (ADOPT_SCRIPT): gone means Redis lost its data. */
  generation(): string {
    return `${this.prefix}generation`;
  }

  /** Instances reserved after Redis lost its data, until they have announced themselves again. */
  lostFloor(): string {
    return `${this.prefix}lost-floor`;
  }

  usage(instanceId: string): string {
    return `${this.prefix}usage:${instanceId}`;
  }
}

/** Class letters stored in cool-down values and passed to the script. */
export const CLASS_LETTER = { read: 'r', write: 'w', cancel: 'c' } as const;
