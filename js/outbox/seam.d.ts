// The seam between the outbox's Rust (src/outbox/seam.rs) and its JS shell (shell.js), one door
// each way: the shell and the app tell Rust `core.input(...OutboxInput)`, Rust asks the shell
// `shell.perform(...OutboxAction)`. Each a tagged union of tuples: [type, n, a?, b?], `n` the
// number of the action an answer belongs to (0 when none). Not part of the package's API.

type Key = string;
type OutboxRecord = object;
type Hint = { type: 'plant-store-outbox'; v: 1; keys: Key[]; released?: true };

/** What the app and the shell tell Rust. */
export type OutboxInput =
  // The app's calls (each answered with a promise) and its pause(), resume(), close().
  | ['open', 0, Shell]
  | ['add', 0, unknown]
  | ['get' | 'retry' | 'markCreated' | 'remove', 0, Key]
  | ['flush' | 'pause' | 'resume' | 'close']
  // The store's answers to action n: opened; the records read (undefined: none); a write's
  // failures, by record; the keys due and the Web Locks held; the expired keys deleted and the
  // next expiry; or the failure of the whole action; the worker asked to deliver what insert n added.
  | ['opened', number]
  | ['read', number, (OutboxRecord | undefined)[]]
  | ['written', number, unknown[]]
  | ['fed', number, Key[], string[] | undefined]
  | ['purged', number, Key[], number | undefined]
  | ['failed', number, unknown]
  | ['synced', number]
  // A Web Lock (n = 1: the tab's own) held, or refused; the timer; an event of the page, the
  // network, the database or the channel (another tab's hint).
  | ['granted', 0 | 1]
  | ['refused', 0 | 1, unknown]
  | ['timer']
  | ['event', 0, Event];

/** What Rust asks the shell. */
export type OutboxAction =
  // The store: open the database; read records by key (or, none given, every one not created and
  // the newest `created` created ones); the keys due by `until` (and the Web Locks held); delete
  // the created records of schema `v` expired by `now` (another release's are its own); a write:
  // read the records of `keys` (by plant id for an add) in one transaction, then put what `apply`
  // gives (a record, null to delete, undefined to leave); an insert, committed as it is made (with
  // the tag: and the worker asked to deliver it); abort the transactions but inserts; close.
  | ['open', number, string]
  | ['read', number, Key[] | undefined, number]
  | ['feed', number, number, boolean]
  | ['purge', number, number, number]
  | ['write', number, Key[], boolean]
  | ['apply', number, (OutboxRecord | null | undefined)[]]
  | ['insert', number, OutboxRecord, string | undefined]
  | ['abandon' | 'shut', 0]
  // A Web Lock (n = 1: the tab's own, while it lives and hears the hints) asked or given back; a hint
  // posted; Background Sync asked of the page's service worker (the tag); the timer armed
  // (undefined: disarmed); the app told of a change (undefined: a record set aside) or a close.
  | ['lock', 0 | 1, string]
  | ['release', 0 | 1]
  | ['post', 0, Hint]
  | ['sync', 0, string]
  | ['arm', 0, number | undefined]
  | ['changed', 0, object | undefined]
  | ['closed', 0, string];

/** The shell, as Rust holds it. */
export interface Shell {
  perform(...action: OutboxAction): void;
}

/** Rust's side, as the shell and the app hold it (`openOutbox(options, worker)` checks the options and makes it). */
export interface OutboxCore {
  input(...input: OutboxInput): Promise<unknown> | undefined;
  /** The object whose platform APIs the shell uses: `options.platform`, else `globalThis`. */
  readonly platform: object;
  /** The outbox's Background Sync tag: `plant-store-outbox:<name>`. */
  readonly tag: string;
  entries(): readonly object[];
  unreadable(): object[];
}
