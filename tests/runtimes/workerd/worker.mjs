// A Worker module: its fetch handler creates a plant through the package (the `workerd` condition)
// against env.BASE_URL and answers with the check's summary as JSON.
import * as api from 'plant-store-client';
import { check } from './check.mjs';

export default {
  async fetch(request, env) {
    const id = new URL(request.url).searchParams.get('id');
    try {
      return Response.json(
        await check(api, { baseUrl: env.BASE_URL, token: env.TOKEN, id, where: 'workerd' }),
      );
    } catch (err) {
      return Response.json({ error: String(err), kind: err?.kind }, { status: 500 });
    }
  },
};
