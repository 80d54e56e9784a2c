// The TypeScript of the outbox (cargo feature `outbox`): wasm-bindgen appends it to the .d.ts of a
// plain `wasm-pack build --features outbox` (src/js/outbox.rs includes it); the npm package's
// `plant-store-client/outbox` types are src/js/types.d.ts, this file, and js/entries/outbox.d.ts.

/** Where an outbox entry stands. */
export type OutboxEntryState = 'pending' | 'sending' | 'created' | 'rejected' | 'uncertain';

/**
 * One plant in an outbox, told apart by `state`: a created one has its Plant, a refused one its
 * error. Times are ms since the epoch. Frozen: the outbox's own view, the same object until it
 * changes.
 */
export type OutboxEntry = OutboxEntryFields &
  (
    | {
        readonly state: 'pending' | 'sending';
        readonly error?: OutboxEntryError;
        readonly created?: undefined;
      }
    | { readonly state: 'created'; readonly created: Plant; readonly error?: undefined }
    | {
        readonly state: 'rejected' | 'uncertain';
        readonly error: OutboxEntryError;
        readonly created?: undefined;
      }
  );

/** What every entry has. */
export interface OutboxEntryFields {
  /** A UUID v4: also the `Idempotency-Key` of every request that sends it. */
  readonly key: string;
  /** The plant as it was added, its `id` of the type it was given. */
  readonly plant: Readonly<NewPlant>;
  /**
   * - `pending`: waits to be sent (now, or at `nextAttemptAt`);
   * - `sending`: a request is out from a tab (no other takes it while that tab lives), or was when its tab went: sent
   *   again, with the same key, by the next round;
   * - `created`: the store created it (`created`); removed from the store after `retentionMs`;
   * - `rejected`: refused (`error`), never sent again on its own: `retry(key)` or `remove(key)`;
   * - `uncertain`: a request may have created it and a later one was refused (a "duplicate id" after a lost
   *   answer, from a server that ignores `Idempotency-Key`): the plant most likely exists. Look for it in your
   *   store, then `markCreated(key)` if it is there, else `retry(key)` or `remove(key)`.
   */
  readonly state: OutboxEntryState;
  /** The tries made for it: each request sent, a send cut short by its tab, a send that failed before its request. */
  readonly attempts: number;
  /** A request may have created the plant unseen; never true of a created entry. */
  readonly maybeCreated: boolean;
  readonly addedAt: number;
  readonly updatedAt: number;
  /** How many times it changed since it was added (1 when added). */
  readonly revision: number;
  /** When it is next sent, after a failed attempt. */
  readonly nextAttemptAt?: number;
  /** Until when the server asked it to wait (`Retry-After`, at most an hour): only `retry(key)` sends it earlier. */
  readonly notBefore?: number;
}

/** An entry's last failed attempt (never `validation`: an add is validated first). */
export interface OutboxEntryError {
  readonly kind: Exclude<PlantStoreErrorKind, 'validation'>;
  readonly status?: number;
  readonly code?: number;
  readonly message: string;
}

/** A record of the store the outbox cannot read (written by a newer release, or not by the outbox): kept, listed, removable. */
export interface OutboxUnreadable {
  key: string;
  /** What is wrong with it. */
  reason: string;
  /** The record as the store gave it. */
  record: unknown;
}

/** What a `change` event's `detail` is: an entry as it now is, or the key of one removed. */
export type OutboxChange = OutboxEntry | { key: string; removed: true };

/** Options of `PlantOutbox.open`: a client's but `signal` (a `config` error: `close()` ends its calls), and the outbox's own. */
export type PlantOutboxOptions = PlantStoreOptions & {
  /** The outbox's name: one IndexedDB database each (`plant-store-outbox:<name>`). */
  name: string;
  /** Entries sent at once, from 1 to 64 (default 4). */
  concurrency?: number;
  /** How long a created entry is kept, in ms from when it was created (default 86400000, a day; 0: removed at once). */
  retentionMs?: number;
  /** The platform APIs the outbox uses, each `globalThis`'s where left out: in Node and tests, fake-indexeddb's `indexedDB`. */
  platform?: OutboxPlatform;
};

/**
 * The platform APIs an outbox uses (none needs the DOM library): its IndexedDB; `navigator.locks` (the Web Locks that
 * let tabs send by turns) and `navigator.onLine`; `BroadcastChannel` (hints between tabs); the `document` whose
 * `visibilitychange`, `freeze` and `resume` it listens to; its own `addEventListener` for `pagehide`, `pageshow`,
 * `online` and `offline` (with `removeEventListener`, which `close()` calls). A member of the wrong kind is a `config`
 * error that names it.
 */
export interface OutboxPlatform {
  indexedDB?: { open(name: string, version?: number): unknown };
  navigator?: {
    locks?: { request(...args: never[]): Promise<unknown>; query(): Promise<unknown> } | null;
    onLine?: boolean;
  };
  BroadcastChannel?: new (name: string) => unknown;
  document?: OutboxEventTarget & { visibilityState?: string };
  addEventListener?: OutboxEventTarget['addEventListener'];
  removeEventListener?: OutboxEventTarget['removeEventListener'];
}

/** What the outbox listens on: the DOM's `EventTarget`, as far as it uses it. */
export interface OutboxEventTarget {
  addEventListener(type: string, listener: (event: unknown) => void): void;
  removeEventListener(type: string, listener: (event: unknown) => void): void;
}

/** A listener of any event (the DOM's `EventListenerOrEventListenerObject`, which a project without the DOM library lacks). */
export type OutboxListener = ((event: Event) => void) | { handleEvent(event: Event): void };
/** The DOM's `AddEventListenerOptions`. */
export interface OutboxListenerOptions {
  capture?: boolean;
  once?: boolean;
  passive?: boolean;
  signal?: AbortSignal;
}

/** The events of a `PlantOutbox`. */
export interface PlantOutboxEventMap {
  /** An entry was added or changed, here or in another tab (`detail`: the entry), or removed (`{ key, removed: true }`). */
  change: CustomEvent<OutboxChange>;
  /**
   * The outbox closed on its own (`detail`: why): another page opened a newer version of its database, or the
   * browser closed it. Its entries are safe; open it again (after a reload, for a newer release).
   */
  close: CustomEvent<string>;
}

/**
 * A durable outbox: each plant added is stored, then sent until the store answers, always with its own
 * `Idempotency-Key`. The store holds the entries; what this tab holds of them is `entries()`.
 */
export declare class PlantOutbox extends EventTarget {
  private constructor();
  /**
   * Validates `plant` (a `validation` error stores nothing), then resolves once its entry is durably stored and, unless
   * paused, the page's service worker asked to deliver it (where it has one; a second at most). A plant whose id the
   * outbox holds (in any tab, within the retention) is not added twice: the same plant resolves to its entry as it is,
   * another one with that id is a `config` error (as is one whose id a record set aside holds).
   */
  add(plant: NewPlant): Promise<OutboxEntry>;
  /**
   * Every entry not created, and the created ones (the newest 100 at open, and all created since, until the
   * retention), in the order they were added: the same frozen array until something changes. A bound function.
   */
  readonly entries: () => readonly OutboxEntry[];
  /**
   * Calls `listener` after each change, a record set aside or removed included (one that throws is reported, as an
   * event listener's error is, and stops nothing); returns the function that stops it. A bound function:
   * `useSyncExternalStore(outbox.subscribe, outbox.entries)`.
   */
  readonly subscribe: (listener: () => void) => () => void;
  /** The entry of `key` as the store holds it now, whatever this tab lists; undefined when there is none. */
  get(key: string): Promise<OutboxEntry | undefined>;
  /** The records the outbox cannot read, set aside. */
  unreadable(): OutboxUnreadable[];
  /**
   * Sends every entry that waits now, whatever its wait but the server's; resolves once each was tried (at once while
   * paused, closed or offline, and in the second after the page hid, when it leaves the sending to the visible tabs).
   */
  flush(): Promise<void>;
  /** Sends a `rejected`, `uncertain` or waiting entry again, now: with its key, or a new one once its key's lifetime is over. */
  retry(key: string): Promise<void>;
  /** Records that you found the plant in the store: the entry becomes `created`, its Plant the one it sent. */
  markCreated(key: string): Promise<void>;
  /** Removes an entry or a record set aside (a request already sent for it is not recalled). */
  remove(key: string): Promise<void>;
  /** Stops sending from this tab (the requests in flight finish; another tab may take over) until `resume()`. */
  pause(): void;
  resume(): void;
  /** Closes the outbox; an entry being sent is sent again, with its key, by the next round. */
  close(): void;
  addEventListener<K extends keyof PlantOutboxEventMap>(
    type: K,
    listener: (this: PlantOutbox, event: PlantOutboxEventMap[K]) => void,
    options?: boolean | OutboxListenerOptions,
  ): void;
  addEventListener(
    type: string,
    listener: OutboxListener | null,
    options?: boolean | OutboxListenerOptions,
  ): void;
  removeEventListener<K extends keyof PlantOutboxEventMap>(
    type: K,
    listener: (this: PlantOutbox, event: PlantOutboxEventMap[K]) => void,
    options?: boolean | { capture?: boolean },
  ): void;
  removeEventListener(
    type: string,
    listener: OutboxListener | null,
    options?: boolean | { capture?: boolean },
  ): void;
}
