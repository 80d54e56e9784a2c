// What the README's outbox example leaves to the reader, as the globals its free names find:
// `baseUrl` and `getToken` from the page's query (`base`, `token`), and `render`, which reports the
// entry once the store has answered (`window.result`).
const query = new URLSearchParams(location.search);
globalThis.baseUrl = query.get('base');
globalThis.getToken = () => query.get('token');
globalThis.render = (change) => {
  if (change.state === 'created' || change.state === 'rejected')
    window.result ??= { state: change.state, name: change.plant.name, error: change.error };
};
