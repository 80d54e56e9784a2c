// The IO of one call. Rust decides (src/call.rs, through src/shell.rs, whose `extern` block is this
// file's other half): it makes a Shell for each call and asks it, one method for each thing to do,
// to send, read, wait, ask the token source, run the hooks or end. A method only records what to
// do; the shell does it once Rust has returned (#go), so that what the caller wrote (fetch,
// getToken, the hooks) never runs while Rust steps the call. What came of it is told to Rust's
// functions (`Told`), with the call's number. The shell holds no rule and builds no header: it
// calls fetch with the request Rust made under an AbortController, reads the body up to the limit
// Rust gives, arms the call's deadline and the attempt's at the instants Rust gives, and ends what
// it awaits at once when one passes or a signal aborts, telling Rust which. Continuations, not
// async functions: an error's async stack then holds the caller's frames, none of this file's.
// The deadlines of the calls under way share one timer (Shell.#keep): a timer of its own for every
// call would cost Node a twentieth of a call on loopback (docs/performance.md).

/** `get()`, as [true, value] or [false, cause]: a forgery (a Response subclass, a Proxy) may throw where Web IDL says nothing does. */
const read = (get) => {
  try {
    return [true, get()];
  } catch (cause) {
    return [false, cause];
  }
};

/** The name of a typed array of any realm (its internal slot), undefined for anything else. */
const typedArrayName = Object.getOwnPropertyDescriptor(
  Object.getPrototypeOf(Uint8Array.prototype),
  Symbol.toStringTag,
).get;

/** What `fn()` returns or throws, as a promise (its own when it returns a promise). */
const settled = (fn) => {
  try {
    return Promise.resolve(fn());
  } catch (cause) {
    return Promise.reject(cause);
  }
};

/** The request Rust made once for a client's calls (shell.rs `request`); `headers` as names and values. */
export function request(
  url,
  method,
  credentials,
  redirect,
  headers,
  key,
  authorization,
  retryAfter,
) {
  const pairs = [];
  for (let i = 0; i < headers.length; i += 2) pairs.push([headers[i], headers[i + 1]]);
  return { url, method, credentials, redirect, headers: pairs, key, authorization, retryAfter };
}

/** Rust's functions that the shells tell what came of what they did, each with its call's number. */
export class Told {
  constructor(
    started,
    returned,
    hooks,
    hooked,
    settled,
    threw,
    aborted,
    answered,
    body,
    waited,
    timedOut,
    attemptTimedOut,
  ) {
    const told = { started, returned, hooks, hooked, settled, threw, aborted, answered, body };
    Object.assign(this, told, { waited, timedOut, attemptTimedOut });
  }
}

/** The shell of one call: its deadline, its signals, the attempt under way, what Rust asked. */
export class Shell {
  /** The shells with a deadline to keep, and the one timer for them all, armed for the earliest at `#at`. */
  static #kept = new Set();
  static #timer;
  static #at = Infinity;
  #told;
  #call;
  #next; // what Rust asked, done once it has returned
  #over = false;
  #turn = 0; // the number of what is awaited: what settles an older one is ignored
  #endsAt; // the call's deadline
  #waiting; // the timer of a wait
  #attempt; // the attempt under way: { controller, endsAt, body, reader, complete }
  #signals = [];
  #onAbort; // what listens to them
  #settle;

  constructor(told, call, endsAt) {
    this.#told = told;
    this.#call = call;
    this.#endsAt = endsAt;
    Shell.#keep(this, endsAt);
  }

  listen(signal) {
    this.#signals.push(signal);
  }

  begin() {
    const promise = new Promise((resolve, reject) => {
      this.#settle = [resolve, reject];
    });
    const aborted = this.#signals.find((signal) => read(() => signal.aborted)[1] === true);
    if (aborted) {
      this.#tell(this.#told.aborted, read(() => aborted.reason)[1]);
      return promise;
    }
    if (this.#signals.length)
      this.#onAbort = ({ target }) => this.#stop(this.#told.aborted, read(() => target.reason)[1]);
    for (const signal of this.#signals) signal.addEventListener('abort', this.#onAbort);
    this.#tell(this.#told.started);
    return promise;
  }

  ask(getToken, refresh) {
    this.#do(() => this.#run(() => getToken({ refresh }), this.#told.returned));
  }

  settle(value) {
    this.#do(() => {
      const awaited = settled(() => value);
      this.#await(this.#turn, awaited, (token) => this.#tell(this.#told.settled, token));
    });
  }

  headers(request, key) {
    const headers = new Headers(request.headers);
    if (key !== undefined) headers.set(request.key, key);
    return headers;
  }

  hook() {
    this.#do(() => this.#run(() => this.#told.hooks(this.#call), this.#told.hooked));
  }

  send(fetch, request, body, key, prepared, authorization, endsAt) {
    this.#do(() => {
      const turn = this.#turn;
      const attempt = { controller: new AbortController(), endsAt };
      this.#attempt = attempt;
      Shell.#keep(this, endsAt);
      const answer = settled(() => {
        const headers = prepared ?? new Headers(request.headers);
        if (key !== undefined) headers.set(request.key, key); // over a before hook's: the call's key stays
        headers.set(request.authorization, authorization);
        const { url, method, credentials, redirect } = request;
        const { controller } = attempt;
        // The signal is made when fetch reads it (Node makes each at a price), then aborted by a stop.
        const init = {
          method,
          headers,
          body,
          credentials,
          redirect,
          get signal() {
            return controller.signal;
          },
        };
        return fetch(url, init);
      });
      this.#await(turn, answer, (response) => {
        const head = read(() => {
          if (!(response instanceof Response)) return [Number.NaN];
          attempt.body = response.body;
          const { status, type, headers } = response;
          const retryAfter = headers.get(request.retryAfter);
          return [typeof status === 'number' ? status : Number.NaN, type, headers, retryAfter];
        });
        if (!head[0]) this.#tell(this.#told.threw, head[1]);
        else this.#tell(this.#told.answered, ...head[1]);
      });
    });
  }

  /** Reads the body up to `limit` bytes, and one past, which tells whether there was more. */
  read(limit) {
    this.#do(() => {
      const attempt = this.#attempt;
      const chunks = [];
      let length = 0;
      const done = (complete) => {
        attempt.complete = complete;
        let bytes = chunks[0]?.subarray(0, limit) ?? new Uint8Array(0);
        if (chunks.length > 1) {
          bytes = new Uint8Array(Math.min(length, limit));
          for (let at = 0, i = 0; at < bytes.length; at += chunks[i++].length)
            bytes.set(chunks[i].subarray(0, bytes.length - at), at);
        }
        this.#tell(this.#told.body, bytes, complete);
      };
      const reader = read(() => attempt.body?.getReader());
      if (!reader[0]) return this.#tell(this.#told.threw, reader[1]);
      if (!reader[1]) return done(true);
      attempt.reader = reader[1];
      const next = () =>
        this.#await(
          this.#turn,
          settled(() => attempt.reader.read()),
          (result) => {
            const chunk = read(() => {
              if (result.done) return null;
              // The typed array's own name, not `instanceof`: a chunk may come from another realm
              // (jsdom's streams are).
              if (typedArrayName.call(result.value) !== 'Uint8Array')
                throw new TypeError('the body stream yielded a chunk that is not bytes');
              return result.value.subarray(0, limit - length + 1);
            });
            if (!chunk[0]) return this.#tell(this.#told.threw, chunk[1]);
            if (chunk[1] === null) return done(true);
            chunks.push(chunk[1]);
            length += chunk[1].length;
            if (length > limit) return done(false);
            next();
          },
        );
      next();
    }, true);
  }

  wait(ms) {
    this.#do(() => {
      const turn = ++this.#turn;
      this.#waiting = setTimeout(() => turn === this.#turn && this.#tell(this.#told.waited), ms);
    });
  }

  done(ok, value) {
    this.#do(() => {
      this.#over = true;
      Shell.#drop(this);
      for (const signal of this.#signals) signal.removeEventListener('abort', this.#onAbort);
      this.#settle[ok ? 0 : 1](value);
    });
  }

  /** Records `next`, what Rust asked; every action but a read ends the attempt under way first. */
  #do(next, reading) {
    this.#next = () => {
      if (!reading) this.#endAttempt();
      next();
    };
  }

  /** Tells Rust `report` (one of `Told`'s) unless the call is over, then does what it asked. */
  #tell(report, a, b, c, d) {
    if (this.#over) return;
    report(this.#call, a, b, c, d);
    const next = this.#next;
    this.#next = undefined;
    next?.();
  }

  /** Calls the caller's `fn`, telling what it returned (as `report`) or threw. */
  #run(fn, report) {
    let value;
    try {
      value = fn();
    } catch (cause) {
      return this.#tell(this.#told.threw, cause);
    }
    this.#tell(report, value);
  }

  /** What `promise` settles with, given to `then` unless a stop came after `turn`; a rejection is told. */
  #await(turn, promise, then) {
    promise.then(
      (settled) => turn === this.#turn && !this.#over && then(settled),
      (cause) => turn === this.#turn && this.#tell(this.#told.threw, cause),
    );
  }

  /** Keeps `shell` until it is over, and arms the timer for `at`, its deadline, if that is the earliest. */
  static #keep(shell, at) {
    Shell.#kept.add(shell);
    Shell.#arm(at);
  }

  /** Arms the timer for `at` unless it is armed for as soon or sooner. */
  static #arm(at) {
    if (at >= Shell.#at) return;
    clearTimeout(Shell.#timer);
    Shell.#at = at;
    Shell.#timer = setTimeout(Shell.#expire, at - Date.now());
  }

  /** `shell` is over; with no shell left, the timer is let go of (it must not keep a process alive). */
  static #drop(shell) {
    Shell.#kept.delete(shell);
    if (Shell.#kept.size) return;
    clearTimeout(Shell.#timer);
    Shell.#at = Infinity;
  }

  /** The timer: each shell whose call or attempt deadline has passed stops; the timer is armed for the next. */
  static #expire() {
    Shell.#at = Infinity;
    const now = Date.now();
    for (const shell of Shell.#kept) {
      if (shell.#endsAt <= now) shell.#stop(shell.#told.timedOut);
      else if (shell.#attempt?.endsAt <= now) shell.#stop(shell.#told.attemptTimedOut);
    }
    let next = Infinity;
    for (const shell of Shell.#kept)
      next = Math.min(next, shell.#endsAt, shell.#attempt?.endsAt ?? next);
    Shell.#arm(next);
  }

  /** The call, or its attempt, stops now: what it awaited is let go of, and Rust is told `report`. */
  #stop(report, reason) {
    if (this.#over) return;
    this.#turn++;
    clearTimeout(this.#waiting);
    const aborted = report === this.#told.aborted;
    this.#endAttempt(aborted ? reason : new DOMException('timed out', 'TimeoutError'));
    this.#tell(report, reason);
  }

  /** Ends the attempt under way: unless its answer was read to its end, its request and body are let go of, with `reason`. */
  #endAttempt(reason) {
    const attempt = this.#attempt;
    if (!attempt) return;
    this.#attempt = undefined;
    if (attempt.complete) return;
    attempt.controller.abort(reason);
    read(() => (attempt.reader ?? attempt.body)?.cancel().catch(() => {}));
  }
}
