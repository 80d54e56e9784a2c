// The IO of one call. Rust decides (src/call.rs, through src/shell.rs): `step(...input)` takes what
// happened and gives the next action; this file does it, and holds no rule and builds no header.
// It awaits what Rust hands it (a token's promise), calls fetch with the request Rust made under an
// AbortController, reads the body up to the limit Rust gives, waits, and ends every wait at once
// when the call's time is up or a signal aborts, telling Rust which. Continuations, not async
// functions: an error's async stack then holds the caller's frames, none of this file's.
//   actions: [AWAIT, promise] | [FETCH, fetch, url, init, attemptMs, headerName] | [READ, limit]
//            | [WAIT, ms] | [DONE, value] | [FAIL, error]
//   inputs:  (VALUE, value) | (THREW, cause) | (STOPPED, why, reason) | (WAITED)
//            | (ANSWER, isResponse, status, type, headers, headerValue) | (BODY, bytes, complete)
const [AWAIT, FETCH, READ, WAIT, DONE] = [0, 1, 2, 3, 4];
const [VALUE, THREW, STOPPED, ANSWER, BODY, WAITED] = [0, 1, 2, 3, 4, 5];
/** Why a wait ended early: a signal aborted, the call's time is up, the attempt's is. */
const [ABORTED, TIMED_OUT, ATTEMPT_TIMED_OUT] = [0, 1, 2];

/** `get()`, as [VALUE, value] or [THREW, cause]: a forgery (a Response subclass, a Proxy) may throw where Web IDL says nothing does. */
const read = (get) => {
  try {
    return [VALUE, get()];
  } catch (cause) {
    return [THREW, cause];
  }
};

/**
 * Runs a call: Rust's `step`, the `signals` that abort it, the time it has. Resolves with what
 * Rust's DONE gives, rejects with what its FAIL gives.
 */
export function run(step, signals, timeoutMs) {
  return new Promise((resolve, reject) => {
    let over = false;
    let turn = 0; // the number of the wait under way: what settles an older one is ignored
    let waiting; // its timer
    let attempt; // the attempt under way: { controller, timer, body, reader, complete }
    // Rust's step is never entered again while it runs: a stop told meanwhile (a hook of the
    // caller's, run by the step, that aborts the call) is told once its action is under way.
    let stepping = false;
    let stopped;
    const onAbort = ({ target }) => interrupt(ABORTED, read(() => target.reason)[1]);
    const timer = setTimeout(() => interrupt(TIMED_OUT), timeoutMs);

    const act = (action) => {
      if (action[0] !== READ) endAttempt();
      if (action[0] === AWAIT) return wait(action[1], tell);
      if (action[0] === FETCH) return send(action);
      if (action[0] === READ) return receive(action[1]);
      if (action[0] === WAIT) {
        const me = ++turn;
        waiting = setTimeout(() => me === turn && tell(WAITED), action[1]);
        return;
      }
      over = true;
      clearTimeout(timer);
      for (const signal of signals) signal.removeEventListener('abort', onAbort);
      (action[0] === DONE ? resolve : reject)(action[1]);
    };
    const tell = (...input) => {
      if (over) return;
      stepping = true;
      let action;
      try {
        action = step(...input);
      } finally {
        stepping = false;
      }
      act(action);
      const told = stopped;
      stopped = undefined;
      if (told) interrupt(...told);
    };
    /** What `thing` (a value, a promise, or a function that makes one) settles with, told to `then` unless a stop came first. */
    const wait = (thing, then) => {
      const me = ++turn;
      new Promise((settle) => settle(typeof thing === 'function' ? thing() : thing)).then(
        (value) => me === turn && then(VALUE, value),
        (cause) => me === turn && then(THREW, cause),
      );
    };
    /** The call, or its attempt, stops now: what it awaited is let go of, and Rust is told why. */
    const interrupt = (why, reason) => {
      if (over) return;
      if (stepping) {
        stopped ??= [why, reason];
        return;
      }
      turn++;
      clearTimeout(waiting);
      endAttempt(why === ABORTED ? reason : new DOMException('timed out', 'TimeoutError'));
      tell(STOPPED, why, reason);
    };
    /** Ends the attempt under way: unless its answer was read to its end, its request and body are let go of, with `reason`. */
    const endAttempt = (reason) => {
      if (!attempt) return;
      const { controller, timer, body, reader, complete } = attempt;
      attempt = undefined;
      clearTimeout(timer);
      if (complete) return;
      controller.abort(reason);
      read(() => (reader ?? body)?.cancel().catch(() => {}));
    };

    const send = ([, fetch, url, init, attemptMs, header]) => {
      const controller = new AbortController();
      attempt = { controller };
      if (attemptMs !== undefined)
        attempt.timer = setTimeout(() => interrupt(ATTEMPT_TIMED_OUT), attemptMs);
      wait(
        () => fetch(url, { ...init, signal: controller.signal }),
        (kind, response) => {
          if (kind === THREW) return tell(THREW, response);
          const head = read(() => {
            if (!(response instanceof Response)) return [false];
            attempt.body = response.body;
            const { headers } = response;
            return [true, response.status, response.type, headers, headers.get(header)];
          });
          if (head[0] === THREW) tell(THREW, head[1]);
          else tell(ANSWER, ...head[1]);
        },
      );
    };

    /** Reads the body up to `limit` bytes, and one past, which tells whether there was more. */
    const receive = (limit) => {
      const chunks = [];
      let length = 0;
      const done = (complete) => {
        attempt.complete = complete;
        const bytes = new Uint8Array(Math.min(length, limit));
        for (let at = 0, i = 0; at < bytes.length; at += chunks[i++].length)
          bytes.set(chunks[i].subarray(0, bytes.length - at), at);
        tell(BODY, bytes, complete);
      };
      const reader = read(() => attempt.body?.getReader());
      if (reader[0] === THREW) return tell(THREW, reader[1]);
      if (!reader[1]) return done(true);
      attempt.reader = reader[1];
      const next = () =>
        wait(
          () => attempt.reader.read(),
          (kind, result) => {
            const chunk =
              kind === THREW
                ? [THREW, result]
                : read(() => {
                    if (result.done) return null;
                    if (!(result.value instanceof Uint8Array))
                      throw new TypeError('the body stream yielded a chunk that is not bytes');
                    return result.value.subarray(0, limit - length + 1);
                  });
            if (chunk[0] === THREW) return tell(THREW, chunk[1]);
            if (chunk[1] === null) return done(true);
            chunks.push(chunk[1]);
            length += chunk[1].length;
            if (length > limit) return done(false);
            next();
          },
        );
      next();
    };

    const aborted = signals.find((signal) => read(() => signal.aborted)[1] === true);
    if (aborted) return tell(STOPPED, ABORTED, read(() => aborted.reason)[1]);
    for (const signal of signals) signal.addEventListener('abort', onAbort);
    tell(VALUE);
  });
}
