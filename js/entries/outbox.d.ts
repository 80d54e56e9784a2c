// The npm package's `PlantOutbox`, the EventTarget over `OutboxCore` (js/entries/outbox.js);
// scripts/finish-pkg.mjs appends it to the types of `plant-store-client/outbox`.

/** Records in memory: an outbox store for tests and for one process. */
export declare class MemoryStore implements OutboxStore {
  constructor();
  getAll(): Promise<object[]>;
  put(record: { key: string }): Promise<void>;
  delete(key: string): Promise<void>;
}

/**
 * A durable outbox: each plant added is stored, then sent (on open, on add, when the page comes online or
 * into view, at its next attempt time, on `flush()`) until the store answers, always with its own
 * `Idempotency-Key`. One tab sends at a time. Listen for `change` events (`CustomEvent<OutboxChange>`).
 */
export declare class PlantOutbox extends EventTarget {
  private constructor();
  /** Opens the outbox: a `config` PlantStoreError when a setting is wrong or the store cannot be opened (the message names the cause). */
  static open(options: PlantOutboxOptions): Promise<PlantOutbox>;
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
