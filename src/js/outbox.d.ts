// The TypeScript of the outbox (cargo feature `outbox`): wasm-bindgen appends it to the .d.ts of a
// plain `wasm-pack build --features outbox` (src/js/outbox.rs includes it); the npm package's
// `plant-store-client/outbox` types are src/js/types.d.ts, this file, and js/entries/outbox.d.ts.

/** Where an outbox entry stands. */
export type OutboxEntryState = "pending" | "sending" | "created" | "rejected" | "uncertain";

/** One plant in an outbox. */
export interface OutboxEntry {
  /** A UUID v4: also the `Idempotency-Key` of every request that sends it. */
  key: string;
  /** The plant as it was added, its `id` of the type it was given. */
  plant: NewPlant;
  /**
   * - `pending`: waits to be sent (now, or at `nextAttemptAt`);
   * - `sending`: a request is out, or was when its page closed: sent again, with the same key, by the next sender;
   * - `created`: the store created it (`created`); removed from the store after `retentionMs`;
   * - `rejected`: refused (`error`), never sent again on its own: `retry(key)` or `remove(key)`;
   * - `uncertain`: a request may have created it and a later one was refused (a "duplicate id" after a lost
   *   answer, from a server that ignores `Idempotency-Key`): the plant most likely exists. Look for it in your
   *   store, then `markCreated(key)` if it is there, else `retry(key)` or `remove(key)`.
   */
  state: OutboxEntryState;
  /** The requests sent for it (a send that its page's closing cut short counts one). */
  attempts: number;
  /** A request may have created the plant without the outbox learning it; never true of a created entry. */
  maybeCreated: boolean;
  /** When it was added (ms since the epoch). */
  addedAt: number;
  /** When it last changed (ms since the epoch). */
  updatedAt: number;
  /** How many times it changed since it was added (1 when added). */
  revision: number;
  /** When it is next sent, after a failed attempt (ms since the epoch). */
  nextAttemptAt?: number;
  /** Until when the server asked it to wait (`Retry-After`, at most an hour): `flush()` and the `online` event do not send it earlier, `retry(key)` does. */
  notBefore?: number;
  /** The last failed attempt's error. */
  error?: { kind: PlantStoreErrorKind; status?: number; code?: number; message: string };
  /** The Plant the store created. */
  created?: Plant;
}

/** A record of the store the outbox cannot read (written by a newer release, or not by the outbox): kept, listed, removable. */
export interface OutboxUnreadable {
  /** Its key, when it has one (`remove(key)` takes it out). */
  key?: string;
  /** What is wrong with it. */
  reason: string;
  /** The record as the store gave it. */
  record: unknown;
}

/** What a `change` event's `detail` is: an entry as it now is, or the key of one removed. */
export type OutboxChange = OutboxEntry | { key: string; removed: true };

/**
 * Where an outbox keeps its entries, when not in IndexedDB. Each record is a plain object with a `key`
 * (strings, numbers and booleans; never the token); `put` resolves once the record is durable.
 */
export interface OutboxStore {
  getAll(): Promise<object[]> | object[];
  put(record: { key: string }): Promise<void> | void;
  delete(key: string): Promise<void> | void;
}

/** Options of `PlantOutbox.open`: a client's, and the outbox's own. */
export type PlantOutboxOptions = PlantStoreOptions & {
  /** The outbox's name: one IndexedDB database each (`plant-store-outbox:<name>`). */
  name: string;
  /** Where the entries are kept; IndexedDB when left out. One outbox per store of your own. */
  store?: OutboxStore;
  /** Entries sent at once, from 1 to 64 (default 4). */
  concurrency?: number;
  /** How long a created entry is kept, in ms from when it was created (default 86400000, a day; 0: removed at once). */
  retentionMs?: number;
};

/** What an open outbox does: `PlantOutbox` (the npm package's) and `OutboxCore` both. */
export interface OutboxOperations {
  /**
   * Validates `plant` (a `validation` error stores nothing), then resolves once its entry is durably stored. A
   * plant whose id the outbox already holds is not added twice: the same plant resolves to its entry as it is,
   * another one with that id is a `config` error.
   */
  add(plant: NewPlant): Promise<OutboxEntry>;
  /**
   * Every entry not created, and the created ones it holds until `retentionMs` (with IndexedDB those created since
   * the outbox opened; a store of yours gives all), in the order they were added.
   */
  entries(): OutboxEntry[];
  /** The records the outbox cannot read, set aside. */
  unreadable(): OutboxUnreadable[];
  /** Sends every pending entry now, whatever its wait; resolves once each was tried (by the tab that sends). */
  flush(): Promise<void>;
  /** Sends a `rejected`, `uncertain` or waiting entry again, now, with its key. */
  retry(key: string): Promise<void>;
  /** Records that you found the plant in the store: the entry becomes `created`, its Plant the one it sent. */
  markCreated(key: string): Promise<void>;
  /** Removes an entry or a record set aside (a request already sent for it is not recalled). */
  remove(key: string): Promise<void>;
  /** Stops sending from this tab (the requests in flight finish; another tab may take over) until `resume()`. */
  pause(): void;
  resume(): void;
  /** Closes the outbox; an entry being sent is sent again, with its key, by the next sender. */
  close(): void;
}

/** An open outbox, as `openOutbox` gives it; the npm package's `PlantOutbox` wraps it in an `EventTarget`. */
export interface OutboxCore extends OutboxOperations {}
export declare class OutboxCore {
  private constructor();
  free(): void;
}

/**
 * Opens the outbox `options` describe; `onChange` is called with each change, `("change", detail)`, and with
 * `("close", reason)` when the outbox closes on its own. (The npm package's `PlantOutbox.open` is this, with
 * each as an event.)
 */
export declare function openOutbox(
  options: PlantOutboxOptions,
  onChange: (type: "change" | "close", detail: OutboxChange | string) => void,
): Promise<OutboxCore>;
