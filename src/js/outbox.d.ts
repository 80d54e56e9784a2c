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
   * `pending` (waits to be sent), `sending` (a request is out, or was when the page closed: sent again with
   * the same key), `created`, `rejected` (refused, never sent again on its own), `uncertain` (an attempt
   * may have created it, and a later one was refused: yours to decide, never sent again on its own).
   */
  state: OutboxEntryState;
  /** Requests sent for it. */
  attempts: number;
  /** One of them may have created the plant without the outbox learning it. */
  maybeCreated: boolean;
  /** When it was added (ms since the epoch). */
  addedAt: number;
  /** When it is next sent, after a failed attempt (ms since the epoch). */
  nextAttemptAt?: number;
  /** The last failed attempt's error. */
  error?: { kind: PlantStoreErrorKind; status?: number; code?: number; message: string };
  /** The Plant the store created. */
  created?: Plant;
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
  /** Where the entries are kept; IndexedDB when left out. */
  store?: OutboxStore;
  /** Entries sent at once, from 1 to 64 (default 4). */
  concurrency?: number;
};

/** What an open outbox does: `PlantOutbox` (the npm package's) and `OutboxCore` both. */
export interface OutboxOperations {
  /** Validates `plant` (a `validation` error stores nothing), then resolves once its entry is durably stored. */
  add(plant: NewPlant): Promise<OutboxEntry>;
  /** Every entry, in the order they were added. */
  entries(): OutboxEntry[];
  /** Sends every pending entry now, whatever its wait; resolves once each was tried. */
  flush(): Promise<void>;
  /** Sends a `rejected`, `uncertain` or waiting entry again. */
  retry(key: string): Promise<void>;
  /** Removes an entry (a request already sent for it is not recalled). */
  remove(key: string): Promise<void>;
  /** Stops sending (the requests in flight finish) until `resume()`. */
  pause(): void;
  resume(): void;
  /** Closes the outbox; an entry being sent is sent again, with its key, on the next open. */
  close(): void;
}

/** An open outbox, as `openOutbox` gives it; the npm package's `PlantOutbox` wraps it in an `EventTarget`. */
export interface OutboxCore extends OutboxOperations {}
export declare class OutboxCore {
  private constructor();
  free(): void;
}

/**
 * Opens the outbox `options` describe; `onChange` is called with each change. (The npm package's
 * `PlantOutbox.open` is this, with the changes as `change` events.)
 */
export declare function openOutbox(options: PlantOutboxOptions, onChange: (change: OutboxChange) => void): Promise<OutboxCore>;
