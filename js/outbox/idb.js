// The shell's IndexedDB helpers: a request as a promise, and the cursor walks of a load, a feed and
// a purge. No IDBKeyRange: a cursor's keys are compared as it walks, so that a platform needs only
// an IDBFactory.

export const noop = () => {};

/** The result of an IndexedDB `request` (none: undefined); one that fails fails alone, not its transaction. */
export function ask(request) {
  return new Promise((resolve, reject) => {
    if (!request) return resolve();
    request.onsuccess = () => resolve(request.result);
    request.onerror = (event) => {
      event.preventDefault();
      reject(request.error);
    };
  });
}

/** Every record not created, then the newest `created` created ones. */
export function load(entries, created) {
  const newest = [];
  const walked = walk(entries.index('expires').openCursor(null, 'prev'), (cursor) => {
    newest.push(cursor.value);
    return newest.length < created;
  });
  const active = ask(entries.index('due').getAll());
  return Promise.all([active, walked]).then(([active]) => active.concat(newest));
}

/** The keys of `index` up to `until`, in its order (a cursor: no IDBKeyRange needed). */
export function upTo(index, until) {
  const keys = [];
  const walked = walk(index.openKeyCursor(), (cursor) => {
    if (cursor.key > until) return false;
    keys.push(cursor.primaryKey);
    return true;
  });
  return walked.then(() => keys);
}

/** Deletes the records of schema `v` whose expiry is `now` or before: their keys, and the next expiry. */
export function purge(entries, now, v) {
  const keys = [];
  let next;
  const walked = walk(entries.index('expires').openCursor(), (cursor) => {
    if (cursor.key > now) {
      next = cursor.key;
      return false;
    }
    if (cursor.value.v === v) {
      keys.push(cursor.primaryKey);
      cursor.delete();
    }
    return true;
  });
  return [walked.then(() => keys), walked.then(() => next)];
}

/** Walks `request`'s cursor while `each(cursor)` says to go on. */
function walk(request, each) {
  return new Promise((resolve, reject) => {
    request.onerror = () => reject(request.error);
    request.onsuccess = () =>
      request.result && each(request.result) ? request.result.continue() : resolve();
  });
}

export function abort(tx) {
  try {
    tx.abort();
  } catch {
    // it had ended
  }
}
