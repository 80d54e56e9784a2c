// Cold start, hand-written: the same first call written by hand with what ours does per call (bearer
// header, JSON.stringify, an AbortController and a 10 s timeout, status check, response.json()), no
// package. Records performance.now() as ours.js does; `imported` is when this module starts running.
const imported = performance.now();
const fetch = async () => new Response('{"name":"Fern","tag":"green"}', { status: 200, headers: { 'content-type': 'application/json' } });

async function createPlant(plant) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('timed out', 'TimeoutError')), 10_000);
  try {
    const response = await fetch('https://plants.example/api/plants', {
      method: 'POST',
      headers: { Authorization: 'Bearer bench-token-0123456789', 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(plant),
      credentials: 'omit',
      signal: controller.signal,
    });
    if (response.status !== 200) throw new Error(`status ${response.status}`);
    return await response.json();
  } finally {
    clearTimeout(timer);
  }
}

const plant = await createPlant({ id: 1, name: 'Fern', tag: 'green' });
globalThis.coldStart = { imported, called: performance.now(), plant };
