/** One unusable key file: which file and what is wrong with it, never any of its content. */
export interface KeyFileProblem {
  file: string;
  problem: string;
}

/** Thrown when key files cannot be used; lists every bad file at once, like the config loader does. */
export class KeyLoadError extends Error {
  constructor(readonly problems: readonly KeyFileProblem[]) {
    super(`Unusable upstream key files:\n${problems.map((p) => `  - ${p.file}: ${p.problem}`).join('\n')}`);
    this.name = 'KeyLoadError';
  }
}

/** Carries the problem of one file up to the store, which collects them into a KeyLoadError. */
export class KeyFileError extends Error {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'KeyFileError';
  }
}
