// The TypeScript declarations of the JS API, the one source of them: wasm-bindgen appends this
// file to the .d.ts of a plain `wasm-pack build` (src/js/api.rs includes it), and the npm package's
// index.d.ts is this file and `init` (scripts/finish-pkg.mjs). No type here needs the DOM library:
// `Headers`, `Response`, `RequestInit`, `AbortSignal` and `URL` are also in @types/node, Deno's and
// workerd's types.

/** The request body of plant creation. */
export interface NewPlant {
  /** int64. A number must be a safe integer; pass a BigInt for ids beyond ±(2^53−1). */
  id: number | bigint;
  /** The name of the plant (any string, including empty). */
  name: string;
  /** Tag that specifies the type of the plant; leave it out (or undefined) for none. */
  tag?: string;
}

/** The created plant, as the Plant Store answered it. */
export interface Plant {
  name: string;
  tag?: string;
}

/** What `getToken` is called with. */
export interface RefreshContext {
  /** False before a request; true once after a 401, to ask for a new token. */
  refresh: boolean;
}

/** How the token is given: a fixed string, or a function called before every request. */
export type PlantStoreAuth =
  | {
      /** The bearer token (an RFC 6750 b64token), without `Bearer `; never refreshed. */ token: string;
      getToken?: undefined;
    }
  | {
      token?: undefined;
      /**
       * Returns the bearer token; called before every request with `{ refresh: false }`. After a 401 it is
       * called once with `{ refresh: true }` (shared by the client's calls refused with the same token) and
       * the request is sent once more with what it returns.
       */
      getToken: (context: RefreshContext) => string | PromiseLike<string>;
    };

/** Retries of a call: only what cannot have created the plant, or was asked for. */
export interface RetryOptions {
  /** Requests in all, the first included, but the one sent again after a token refresh: 1 to 10 (default 3). */
  attempts?: number;
  /** The cap of the first backoff wait in ms, doubled at each retry; full jitter (default 100). */
  baseDelayMs?: number;
  /** The cap of every wait, a Retry-After included (default 2000). A longer Retry-After ends the call. */
  maxDelayMs?: number;
  /** Also retry 502 and 504, which a gateway may send after passing the request on (default false). */
  gatewayErrors?: boolean;
  /** Give up on an attempt after this many ms and retry it (a `timeout` that may have created the plant). */
  attemptTimeoutMs?: number;
}

/** What `beforeAttempt` is given. */
export interface AttemptInfo {
  url: string;
  /** 1 for the first request of the call. */
  attempt: number;
  /** The headers to send, without Authorization; add to them (not Authorization nor Content-Length, Host, …; Content-Type unchanged; the call's Idempotency-Key is set after). */
  headers: Headers;
}

/** What `afterAttempt` is given, for each request sent. */
export interface AttemptOutcome {
  url: string;
  attempt: number;
  /** From the request to the end of the answer or the failure. */
  durationMs: number;
  /** The status and the headers of the answer, when one came. */
  status?: number;
  headers?: Headers;
  /** The attempt's error, when it failed (retried or not). */
  error?: PlantStoreError;
}

/** Options of `createPlant` and `new PlantStoreClient`. Unknown keys are a `config` error. */
export type PlantStoreOptions = PlantStoreAuth & {
  /** Absolute http(s) URL, optionally with a path prefix: `https://host/api/v1`. No query or fragment. */
  baseUrl: string;
  /** A fetch implementation to use instead of `globalThis.fetch`; called as `fetch(url, init)`. */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  /** Aborts every call made with these options. */
  signal?: AbortSignal;
  /** Timeout of one call in milliseconds, from 1 to 2147483647 (default 10000). */
  timeoutMs?: number;
  /** Extra request headers; they cannot set Authorization, Content-Type, Idempotency-Key or the connection's and framing's (Content-Length, Host, …). */
  headers?: Record<string, string>;
  /** Retries of every call; off unless given (it is a POST). `timeoutMs` bounds the call, waits included. */
  retry?: RetryOptions;
  /** Send a generated `Idempotency-Key` (the same on every attempt of a call). The server's CORS must allow it. */
  idempotencyKey?: boolean;
  /** How `Idempotency-Key` carries the key: `'quoted'` (default), a Structured Fields string `"key"`, or `'bare'`, the key's bytes alone. */
  idempotencyKeyFormat?: 'quoted' | 'bare';
  /**
   * How long the server keeps a key, in whole ms from 1 to 2^53 - 1, or `Infinity` (default 86400000, 24 h): a call
   * does not send its key again once its first request that may have reached the store is older.
   */
  keyLifetimeMs?: number;
  /** Called before each attempt (synchronously); may add headers. What it throws, or a promise it returns, ends the call (`config`). */
  beforeAttempt?: (attempt: AttemptInfo) => void;
  /** Called after each attempt that sent a request (synchronously). What it throws, or a promise it returns, ends the call (`config`). */
  afterAttempt?: (outcome: AttemptOutcome) => void;
};

/** Options of one `client.createPlant` call. */
export interface CallOptions {
  /** Aborts this call. */
  signal?: AbortSignal;
  /** This call's retries instead of the client's; `null` for none. */
  retry?: RetryOptions | null;
  /** This call's Idempotency-Key: a string (1 to 255 printable ASCII characters, no `"` or `\`), true for a generated one, false for none. */
  idempotencyKey?: string | boolean;
}

/** What a validation issue is about. */
export type ValidationIssueCode =
  | 'invalid_type'
  | 'required'
  | 'unknown_field'
  | 'not_integer'
  | 'unsafe_integer'
  | 'out_of_range'
  | 'malformed_string'
  | 'unreadable';

/** One problem with a NewPlant. */
export interface ValidationIssue {
  /** The field's name: "id", "name", "tag", an unknown key, or "" for the value as a whole. */
  path: string;
  code: ValidationIssueCode;
  /** A sentence that names the field. */
  message: string;
}

/** The answer of `validateNewPlant`. */
export type ValidationResult =
  | { ok: true; value: NewPlant }
  | { ok: false; issues: ValidationIssue[] };

/** What went wrong; see the README for each. */
export type PlantStoreErrorKind = PlantStoreError['kind'];

/**
 * What every PlantStoreError has; `kind` tells which of the types below it is, and each narrows the
 * optional fields it always has (`code` after `"rejected"`, `issues` after `"validation"`).
 */
interface PlantStoreErrorBase extends Error {
  readonly name: 'PlantStoreError';
  /** The original JavaScript failure, or else the error of the attempt before, when there was one. */
  readonly cause?: unknown;
  /** The HTTP status, when an answer came. */
  readonly status?: number;
  /** The service's `error` value, when it sent an Error body. */
  readonly code?: number;
  /** Every problem with the NewPlant (a `validation` error). */
  readonly issues?: ValidationIssue[];
  /** The wait (ms) the Retry-After of the 429 or 503 the call ended on asked for, retries on or off: wait at least this long. */
  readonly retryAfterMs?: number;
  /** The requests sent: 0 when the call failed before sending one. */
  readonly attempts: number;
  /**
   * True when a request may have reached the store without the client learning the outcome (no answer,
   * a timeout, any 5xx): the plant may exist. A refusal after such a request in the same call keeps it.
   */
  readonly maybeCreated: boolean;
  toJSON(): {
    name: 'PlantStoreError';
    kind: PlantStoreErrorKind;
    message: string;
    status?: number;
    code?: number;
    issues?: ValidationIssue[];
    attempts: number;
    maybeCreated: boolean;
    retryAfterMs?: number;
  };
}

/** The NewPlant broke a rule of the contract; nothing was sent. */
export interface ValidationError extends PlantStoreErrorBase {
  readonly kind: 'validation';
  /** Every problem found. */
  readonly issues: ValidationIssue[];
}

/**
 * A wrong option, a getToken or a hook that failed, no fetch, the .wasm not loaded. `attempts` says
 * what was sent: nothing, unless `afterAttempt` threw after its request or getToken failed before a retry.
 */
export interface ConfigError extends PlantStoreErrorBase {
  readonly kind: 'config';
}

/** No answer: fetch threw or rejected (the reason, such as ECONNREFUSED, is in the message), or the body broke off. */
export interface NetworkError extends PlantStoreErrorBase {
  readonly kind: 'network';
}

/** No complete answer within `timeoutMs` (or `retry.attemptTimeoutMs`). */
export interface TimeoutError extends PlantStoreErrorBase {
  readonly kind: 'timeout';
}

/** A signal aborted the call; `cause` is its reason. */
export interface AbortedError extends PlantStoreErrorBase {
  readonly kind: 'aborted';
}

/** The Plant Store answered 400 with an Error body: `message` is its message, `code` its `error`. */
export interface RejectedError extends PlantStoreErrorBase {
  readonly kind: 'rejected';
  readonly status: 400;
  readonly code: number;
}

/** 401: the token was refused (for getToken: also after one refresh), or the refresh failed. */
export interface UnauthorizedError extends PlantStoreErrorBase {
  readonly kind: 'unauthorized';
  readonly status: 401;
}

/** Any other status (404, 409, 429, 5xx, 204, a redirect, …). */
export interface UnexpectedStatusError extends PlantStoreErrorBase {
  readonly kind: 'unexpected_status';
  /** The HTTP status (none for an opaque redirect). */
  readonly status?: number;
}

/** An answer outside the contract: a 200 that is not a Plant, a 400 without an Error body, not a Response. */
export interface InvalidResponseError extends PlantStoreErrorBase {
  readonly kind: 'invalid_response';
}

/**
 * Every failure of this package: one of the types above, told apart by `kind`, so that
 * `err.kind === "rejected"` makes `err.code` a number. The token never appears in it.
 */
export type PlantStoreError =
  | ValidationError
  | ConfigError
  | NetworkError
  | TimeoutError
  | AbortedError
  | RejectedError
  | UnauthorizedError
  | UnexpectedStatusError
  | InvalidResponseError;

/** The class of every PlantStoreError: `err instanceof PlantStoreError` narrows `err` to the union. */
export declare const PlantStoreError: {
  new (kind: PlantStoreErrorKind, message: string, details?: object): PlantStoreError;
  readonly prototype: PlantStoreError;
  /** True for a PlantStoreError, also from another realm or copy of this package. */
  is(value: unknown): value is PlantStoreError;
};

/**
 * A client with checked options, for many calls. (Where the runtime has `Symbol.dispose`, the class
 * also has `[Symbol.dispose]()`, the same as `free()`; it is left out of these types so that they
 * compile with a `lib` older than ESNext.)
 */
export declare class PlantStoreClient {
  /** Checks the options once; throws a `PlantStoreError` of kind `config`. */
  constructor(options: PlantStoreOptions);
  /** Validates `plant` locally, then sends it; `options` may change this call's signal, retries and key. */
  createPlant(plant: NewPlant, options?: CallOptions | null): Promise<Plant>;
  /** Frees the client's memory in wasm now, rather than when it is garbage-collected. */
  free(): void;
}

/**
 * Validates `plant` locally, then sends it to `POST {baseUrl}/plants`. Resolves to the created Plant;
 * rejects with a `PlantStoreError`. The options are checked on every call; a `PlantStoreClient` checks
 * them once.
 */
export declare function createPlant(plant: NewPlant, options: PlantStoreOptions): Promise<Plant>;

/** Checks a NewPlant without sending anything (for forms): every issue at once, or the plant as it would be sent. */
export declare function validateNewPlant(plant: unknown): ValidationResult;
