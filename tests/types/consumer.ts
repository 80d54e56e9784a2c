// A TypeScript consumer of the package: right calls compile, wrong ones are `@ts-expect-error`.
// Type-checked against the installed package under each setup of tests/js/types.test.mjs (with and
// without the DOM library, moduleResolution bundler and node16); never run.
import {
  createPlant,
  validateNewPlant,
  PlantStoreClient,
  PlantStoreError,
  init,
  type NewPlant,
  type Plant,
  type PlantStoreOptions,
  type PlantStoreErrorKind,
  type ValidationIssue,
  type ValidationIssueCode,
  type ValidationResult,
  type PlantStoreAuth,
  type RefreshContext,
  type RetryOptions,
  type AttemptInfo,
  type AttemptOutcome,
  type CallOptions,
  type ValidationError,
  type ConfigError,
  type NetworkError,
  type TimeoutError,
  type AbortedError,
  type RejectedError,
  type UnauthorizedError,
  type UnexpectedStatusError,
  type InvalidResponseError,
} from 'plant-store-client';
import {
  PlantOutbox,
  type OutboxEntry,
  type OutboxChange,
  type PlantOutboxOptions,
  type OutboxUnreadable,
} from 'plant-store-client/outbox';

const options: PlantStoreOptions = { baseUrl: 'https://plants.example/api', token: 't0ken' };

async function rightUses(): Promise<void> {
  const plant: Plant = await createPlant({ id: 1, name: 'Fern' }, options);
  const name: string = plant.name;
  const tag: string | undefined = plant.tag;
  await createPlant({ id: 9007199254740993n, name: 'Big', tag: 'x' }, options);
  await createPlant(
    { id: 2, name: 'N' },
    { baseUrl: 'http://127.0.0.1:4010', getToken: async () => 't' },
  );
  await createPlant(
    { id: 3, name: 'N' },
    {
      ...options,
      fetch: (url: string, init: RequestInit) => fetch(url, init),
      signal: new AbortController().signal,
      timeoutMs: 5000,
      headers: { 'X-Trace': '1' },
    },
  );

  const client = new PlantStoreClient({ baseUrl: 'https://plants.example', getToken: () => 't' });
  await client.createPlant({ id: 4, name: 'C' });
  // Issue 25: retries, the refresh context, the hooks and the error's attempt fields.
  const retrying = new PlantStoreClient({
    baseUrl: 'https://plants.example',
    getToken: async ({ refresh }: { refresh: boolean }) => (refresh ? 'new' : 'old'),
    retry: {
      attempts: 3,
      baseDelayMs: 100,
      maxDelayMs: 2000,
      gatewayErrors: true,
      attemptTimeoutMs: 500,
    },
    idempotencyKey: true,
    idempotencyKeyFormat: 'bare',
    keyLifetimeMs: Number.POSITIVE_INFINITY,
    beforeAttempt: ({ url, attempt, headers }) => {
      headers.set('traceparent', `${url}${attempt}`);
    },
    afterAttempt: ({ attempt, durationMs, status, headers, error }) => {
      const n: number = attempt + durationMs + (status ?? 0);
      const id: string | null | undefined = headers?.get('x-request-id');
      const kind: PlantStoreErrorKind | undefined = error?.kind;
      return void [n, id, kind];
    },
  });
  await retrying.createPlant({ id: 5, name: 'R' }, { retry: null, idempotencyKey: 'order-5' });
  await retrying.createPlant(
    { id: 6, name: 'R' },
    { retry: { attempts: 2 }, idempotencyKey: false },
  );
  try {
    await retrying.createPlant({ id: 7, name: 'R' });
  } catch (e) {
    if (e instanceof PlantStoreError && e.kind === 'unauthorized') {
      const attempts: number = e.attempts;
      const maybe: boolean = e.maybeCreated;
      const wait: number | undefined = e.retryAfterMs;
      void [attempts, maybe, wait];
    }
  }
  await client.createPlant({ id: 5, name: 'C' }, { signal: AbortSignal.timeout(100) });
  await client.createPlant({ id: 5, name: 'C' }, null);

  const result = validateNewPlant(JSON.parse('{}') as unknown);
  if (result.ok) {
    const valid: NewPlant = result.value;
    const id: number | bigint = valid.id;
  } else {
    const issues: ValidationIssue[] = result.issues;
    const codes: string[] = issues.map((i) => i.code + i.path + i.message);
  }

  try {
    await createPlant({ id: 6, name: 'E' }, options);
  } catch (e) {
    if (e instanceof PlantStoreError) {
      const kind: PlantStoreErrorKind = e.kind;
      const status: number | undefined = e.status;
      const code: number | undefined = e.code;
      const issues: ValidationIssue[] | undefined = e.issues;
      const base: Error = e;
      switch (e.kind) {
        case 'validation':
        case 'config':
        case 'network':
        case 'timeout':
        case 'aborted':
        case 'rejected':
        case 'unexpected_status':
        case 'invalid_response':
          break;
        // @ts-expect-error: not a kind
        case 'server_error':
          break;
      }
    }
    if (PlantStoreError.is(e)) {
      const kind: PlantStoreErrorKind = e.kind;
    }
  }
}

// Every public type is exported, and each is the shape the options take.
const retry: RetryOptions = { attempts: 3, attemptTimeoutMs: 500 };
const call: CallOptions = { retry, idempotencyKey: 'order-1' };
const auth: PlantStoreAuth = { getToken: ({ refresh }: RefreshContext) => (refresh ? 'b' : 'a') };
const before = (info: AttemptInfo): void => {
  info.headers.set('x-attempt', String(info.attempt));
};
const after = (outcome: AttemptOutcome): number => outcome.durationMs;
const code: ValidationIssueCode = 'unknown_field';

async function atImport(): Promise<void> {
  const checked: ValidationResult = validateNewPlant({ id: 1, name: 'x' });
  await init();
  // @ts-expect-error: init loads nothing from a source: the wasm is inside the module
  await init(new URL('https://cdn.example/plant_store_client_bg.wasm'));
  void [call, code, checked, auth, before, after];
}

// The error is a union told apart by `kind`: each check narrows it to the fields that kind has.
function narrowing(err: PlantStoreError): string {
  const maybeCode: number | undefined = err.code;
  // @ts-expect-error: before narrowing, code may be undefined
  const notYet: number = err.code;
  // @ts-expect-error: before narrowing, issues may be undefined
  err.issues.length;
  switch (err.kind) {
    case 'rejected': {
      const rejected: RejectedError = err;
      const code: number = err.code;
      const status: 400 = err.status;
      return `${rejected.message} ${code} ${status}`;
    }
    case 'validation': {
      const validation: ValidationError = err;
      const issues: ValidationIssue[] = err.issues;
      return `${validation.message} ${issues.length}`;
    }
    case 'unauthorized': {
      const status: 401 = err.status;
      const unauthorized: UnauthorizedError = err;
      return `${unauthorized.message} ${status}`;
    }
    case 'unexpected_status': {
      const unexpected: UnexpectedStatusError = err;
      const wait: number | undefined = err.retryAfterMs;
      return `${unexpected.status} ${wait}`;
    }
    case 'config':
    case 'network':
    case 'timeout':
    case 'aborted':
    case 'invalid_response': {
      const other: ConfigError | NetworkError | TimeoutError | AbortedError | InvalidResponseError =
        err;
      // @ts-expect-error: only a rejected error is typed as a 400
      const status: 400 = err.status;
      return `${other.kind} ${status} ${maybeCode} ${notYet}`;
    }
  }
}

async function wrongUses(): Promise<void> {
  // @ts-expect-error: id must be a number or a bigint
  await createPlant({ id: '12', name: 'Fern' }, options);
  // @ts-expect-error: name is required
  await createPlant({ id: 1 }, options);
  // @ts-expect-error: tag must be a string
  await createPlant({ id: 1, name: 'a', tag: null }, options);
  // @ts-expect-error: unknown field
  await createPlant({ id: 1, name: 'a', tags: 'x' }, options);
  // @ts-expect-error: options are required
  await createPlant({ id: 1, name: 'a' });
  // @ts-expect-error: baseUrl is required
  await createPlant({ id: 1, name: 'a' }, { token: 't' });
  // @ts-expect-error: a token or getToken is required
  await createPlant({ id: 1, name: 'a' }, { baseUrl: 'https://h' });
  await createPlant(
    { id: 1, name: 'a' },
    // @ts-expect-error: not both
    { baseUrl: 'https://h', token: 't', getToken: () => 't' },
  );
  // @ts-expect-error: headers are strings
  await createPlant({ id: 1, name: 'a' }, { ...options, headers: { 'X-N': 1 } });
  await createPlant(
    { id: 1, name: 'a' },
    // @ts-expect-error: fetch is called as fetch(url, init), not with a Request
    { ...options, fetch: (request: Request) => fetch(request) },
  );
  await createPlant({ id: 1, name: 'a' }, { ...options, fetch });
  // @ts-expect-error: timeoutMs is a number
  await createPlant({ id: 1, name: 'a' }, { ...options, timeoutMs: '100' });
  // @ts-expect-error: the result has no id
  (await createPlant({ id: 1, name: 'a' }, options)).id;
  // @ts-expect-error: call options take a signal, retries and a key, not a timeout
  await new PlantStoreClient(options).createPlant({ id: 1, name: 'a' }, { timeoutMs: 1 });
  // @ts-expect-error: retry is an object
  await createPlant({ id: 1, name: 'a' }, { ...options, retry: 3 });
  // @ts-expect-error: an options-level key is a boolean (a string key is per call)
  await createPlant({ id: 1, name: 'a' }, { ...options, idempotencyKey: 'k' });
  // @ts-expect-error: the key's format is 'quoted' or 'bare'
  await createPlant({ id: 1, name: 'a' }, { ...options, idempotencyKeyFormat: 'plain' });
  await createPlant(
    { id: 1, name: 'a' },
    // @ts-expect-error: a hook gets one object
    { ...options, beforeAttempt: (url: string, n: number) => void [url, n] },
  );
  const result = validateNewPlant({});
  // @ts-expect-error: value exists only when ok is true
  result.value;
}

// Issues 33, 37 and 43: the outbox.
async function outboxes(): Promise<void> {
  const settings: PlantOutboxOptions = {
    ...options,
    name: 'plants',
    platform: globalThis,
    concurrency: 2,
    retentionMs: 3_600_000,
  };
  const outbox: PlantOutbox = await PlantOutbox.open(settings);
  const target = new EventTarget();
  const page = { document: Object.assign(target, { visibilityState: 'visible' }) };
  const { addEventListener, removeEventListener } = target;
  void PlantOutbox.open({
    ...settings,
    platform: { ...page, addEventListener, removeEventListener },
  });
  // @ts-expect-error: close() takes its listeners off: removeEventListener beside addEventListener
  void PlantOutbox.open({ ...settings, platform: { document: { addEventListener } } });
  outbox.addEventListener('change', (event) => {
    const change: OutboxChange = event.detail;
    if ('removed' in change) return void change.key;
    const state: 'pending' | 'sending' | 'created' | 'rejected' | 'uncertain' = change.state;
    const code: number | undefined = change.error?.code;
    void [
      state,
      code,
      change.created?.name,
      change.nextAttemptAt,
      change.notBefore,
      change.revision,
      change.updatedAt,
    ];
  });
  outbox.addEventListener('close', (event) => {
    const reason: string = event.detail;
    void reason;
  });
  const entry: OutboxEntry = await outbox.add({ id: 9007199254740993n, name: 'Fern' });
  const key: string = entry.key;
  const entries: readonly OutboxEntry[] = outbox.entries();
  // Bound, for React's useSyncExternalStore(subscribe, getSnapshot).
  const [getSnapshot, subscribe] = [outbox.entries, outbox.subscribe];
  const unsubscribe: () => void = subscribe(() => void getSnapshot().length);
  unsubscribe();
  const held: OutboxEntry | undefined = await outbox.get(key);
  const aside: OutboxUnreadable[] = outbox.unreadable();
  const reason: string = aside[0]?.reason ?? '';
  await outbox.flush();
  await outbox.retry(key);
  await outbox.markCreated(key);
  await outbox.remove(key);
  outbox.pause();
  outbox.resume();
  outbox.close();
  void [entries, reason, held];
  // An entry narrows on its state: a created one has its Plant, a refused one its error.
  const said = (e: OutboxEntry): string =>
    e.state === 'created'
      ? e.created.name
      : e.state === 'rejected' || e.state === 'uncertain'
        ? e.error.message
        : (e.error?.message ?? e.state);
  void said;
  // @ts-expect-error: a pending entry has no Plant yet
  const early = (e: OutboxEntry): string => e.created.name;
  void early;
  // @ts-expect-error: an entry is the outbox's view, not to be changed
  entry.state = 'created';
  // @ts-expect-error: the entries are the outbox's snapshot, not to be changed
  outbox.entries().push(entry);
  // @ts-expect-error: an outbox needs a name
  await PlantOutbox.open({ ...options });
  // @ts-expect-error: it is opened, never constructed
  new PlantOutbox();
  // @ts-expect-error: no store option: the platform gives the IndexedDB
  await PlantOutbox.open({ ...options, name: 'n', store: {} });
  // @ts-expect-error: an entry's state is one of five
  const wrong: OutboxEntry['state'] = 'lost';
  // @ts-expect-error: a change's detail is no string
  outbox.addEventListener('change', (event) => event.detail.toUpperCase());
  // @ts-expect-error: markCreated takes the key alone
  await outbox.markCreated(key, { name: 'x' });
  void wrong;
}

export { rightUses, wrongUses, atImport, narrowing, outboxes };
