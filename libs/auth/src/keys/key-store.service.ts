import { createHash } from 'node:crypto';

import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';

import { EnvironmentBinding } from '../environment/environment-binding.js';
import { KeyFileWatcher } from './key-file-watcher.js';
import {
  type Ed25519PrivateKey,
  parseEd25519Secret,
  parseRsaPrivateKey,
  readKeyFile,
  type RsaPrivateKey,
} from './key-files.js';
import { KeyFileError, type KeyFileProblem, KeyLoadError } from './key-load.error.js';

export interface ExchangeCredential {
  readonly clientId: string;
  readonly key: RsaPrivateKey;
}

export interface RetailCredential {
  readonly name: string;
  /** X-PM-Access-Key (a UUID); an identifier, not a secret. */
  readonly keyId: string;
  readonly key: Ed25519PrivateKey;
}

/** One immutable generation of keys. A reload swaps the whole set, so a user holding one never sees a mix. */
export interface KeySet {
  readonly generation: number;
  readonly exchange: ExchangeCredential | undefined;
  readonly retail: ReadonlyMap<string, RetailCredential>;
}

/**
 * Custody of the running environment's upstream keys. Loads them at module init (a bad key stops the
 * start), reloads on SIGHUP and when a key file changes, and keeps the old keys when a reload fails.
 */
@Injectable()
export class KeyStore implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(KeyStore.name);
  private keys: KeySet | undefined;
  private reloading: Promise<boolean> | undefined;
  private queued: Promise<boolean> | undefined;
  private watcher: KeyFileWatcher | undefined;
  /**
   * Each file's key as last parsed, by the SHA-256 of the file's text (never the text itself): a reload
   * parses only the files whose bytes changed. A watched directory changes for many reasons (Kubernetes
   * swaps its `..data` link on any secret's update), and an RSA key's parse and import cost milliseconds.
   */
  private readonly parsed = new Map<string, { digest: string; key: RsaPrivateKey | Ed25519PrivateKey }>();
  private readonly onSighup = (): void => void this.reload();

  constructor(private readonly binding: EnvironmentBinding) {}

  async onModuleInit(): Promise<void> {
    await this.load();
    this.watch();
  }

  onApplicationShutdown(): void {
    this.unwatch();
  }

  get current(): KeySet {
    if (this.keys === undefined) throw new Error('KeyStore used before its keys were loaded');
    return this.keys;
  }

  exchange(): ExchangeCredential | undefined {
    return this.current.exchange;
  }

  retail(name: string): RetailCredential | undefined {
    return this.current.retail.get(name);
  }

  /** Every key file of the running environment. */
  files(): string[] {
    const env = this.binding.environment;
    return [
      ...(env.exchangeClient ? [env.exchangeClient.privateKeyFile] : []),
      ...env.retailAccounts.map((a) => a.secretKeyFile),
    ];
  }

  /** First load: throws a KeyLoadError naming every bad file, so the application does not start. */
  async load(): Promise<void> {
    this.keys = await this.readAll(1);
    this.logger.log(`Loaded ${this.describe(this.keys)} for the ${this.binding.name} environment`);
  }

  /**
   * Re-reads every key file. Resolves true when the new set is in use; false when a file was bad, in
   * which case the previous keys stay in use. Calls during a reload share one further read.
   */
  reload(): Promise<boolean> {
    if (this.queued) return this.queued;
    if (this.reloading === undefined) return this.startReload();
    this.queued = this.reloading.then(() => {
      this.queued = undefined;
      return this.startReload();
    });
    return this.queued;
  }

  watch(): void {
    if (this.watcher) return;
    this.watcher = new KeyFileWatcher(this.files(), () => void this.reload());
    this.watcher.start();
    process.on('SIGHUP', this.onSighup);
  }

  unwatch(): void {
    this.watcher?.close();
    this.watcher = undefined;
    process.off('SIGHUP', this.onSighup);
  }

  private startReload(): Promise<boolean> {
    this.reloading = this.reloadOnce().finally(() => {
      this.reloading = undefined;
    });
    return this.reloading;
  }

  private async reloadOnce(): Promise<boolean> {
    const previous = this.keys;
    let next: KeySet;
    try {
      next = await this.readAll((previous?.generation ?? 0) + 1);
    } catch (error) {
      const detail = error instanceof KeyLoadError ? error.message : 'unexpected error';
      this.logger.error(`Key reload failed; the previous keys stay in use. ${detail}`);
      return false;
    }
    const changed = previous ? changedKeys(previous, next) : ['all keys'];
    if (changed.length === 0) return true;
    this.keys = next;
    this.logger.log(`Rotated ${changed.join(', ')}; new requests use the new keys`);
    return true;
  }

  private async readAll(generation: number): Promise<KeySet> {
    const env = this.binding.environment;
    const problems: KeyFileProblem[] = [];
    const collect = <T>(work: Promise<T>): Promise<T | undefined> =>
      work.catch((error: unknown) => {
        problems.push(
          error instanceof KeyFileError
            ? { file: error.file, problem: error.problem }
            : { file: '(unknown)', problem: 'unexpected error' },
        );
        return undefined;
      });
    const client = env.exchangeClient;
    const exchangeKey = client
      ? collect(
          this.read(client.privateKeyFile, parseRsaPrivateKey, (key): key is RsaPrivateKey => 'signingKey' in key),
        )
      : undefined;
    const retailKeys = env.retailAccounts.map((account) =>
      collect(this.read(account.secretKeyFile, parseEd25519Secret, (key): key is Ed25519PrivateKey => 'seed' in key)),
    );
    const [exchange, ...retail] = await Promise.all([exchangeKey, ...retailKeys]);
    const accounts = new Map<string, RetailCredential>();
    env.retailAccounts.forEach((account, i) => {
      const key = retail[i];
      if (accounts.has(account.name))
        problems.push({ file: account.secretKeyFile, problem: `retail account "${account.name}" is configured twice` });
      if (key) accounts.set(account.name, { name: account.name, keyId: account.keyId, key });
    });
    if (problems.length > 0) throw new KeyLoadError(problems);
    return {
      generation,
      exchange: client && exchange ? { clientId: client.clientId, key: exchange } : undefined,
      retail: accounts,
    };
  }

  /** The file's key: the last parse when its bytes are the same, else a new parse (remembered once it succeeds). */
  private async read<K extends RsaPrivateKey | Ed25519PrivateKey>(
    file: string,
    parse: (file: string, text: string) => K | Promise<K>,
    isKind: (key: RsaPrivateKey | Ed25519PrivateKey) => key is K,
  ): Promise<K> {
    const text = await readKeyFile(file);
    const digest = createHash('sha256').update(text).digest('hex');
    const known = this.parsed.get(file);
    if (known?.digest === digest && isKind(known.key)) return known.key;
    const key = await parse(file, text);
    this.parsed.set(file, { digest, key });
    return key;
  }

  private describe(keys: KeySet): string {
    const exchange = keys.exchange
      ? `exchange key of ${keys.exchange.clientId} (${keys.exchange.key.fingerprint})`
      : 'no exchange key';
    const retail = [...keys.retail.values()].map((r) => `${r.name} (${r.key.fingerprint})`);
    return `${exchange} and ${retail.length} retail key(s)${retail.length ? `: ${retail.join(', ')}` : ''}`;
  }
}

/** Names of the keys whose public fingerprint differs between two sets. */
function changedKeys(before: KeySet, after: KeySet): string[] {
  const changed: string[] = [];
  if (before.exchange?.key.fingerprint !== after.exchange?.key.fingerprint)
    changed.push(`exchange key (now ${after.exchange?.key.fingerprint ?? 'none'})`);
  for (const [name, credential] of after.retail) {
    if (before.retail.get(name)?.key.fingerprint !== credential.key.fingerprint)
      changed.push(`retail key ${name} (now ${credential.key.fingerprint})`);
  }
  return changed;
}
