// The Plant Store as the app's tests mock it with MSW, in Node (setupServer) and in a page (setupWorker).
import { HttpResponse, http } from 'msw';
import { API } from '../src/api.js';

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST',
  'access-control-allow-headers': 'authorization, content-type, idempotency-key',
};

export const handlers = [
  // happy-dom's fetch asks a CORS preflight first, as a browser would; MSW 3 needs its answer.
  http.options(`${API}/plants`, () => new HttpResponse(null, { status: 204, headers: CORS })),
  http.post(`${API}/plants`, async ({ request }) => {
    if (request.headers.get('authorization') !== 'Bearer test-token')
      return HttpResponse.json({ error: 1, message: 'bad token' }, { status: 401 });
    const plant = await request.json();
    if (plant.id === 1)
      return HttpResponse.json(
        { error: 3, message: 'a plant with id 1 already exists' },
        { status: 400 },
      );
    return HttpResponse.json({ name: plant.name, tag: plant.tag });
  }),
];
