// A route handler on the edge runtime: the call of check.mjs, made by the server.
import * as api from 'plant-store-client';
import { check } from '../../../check.mjs';

export const runtime = 'edge';

export async function POST(request) {
  const { baseUrl, token, id } = await request.json();
  try {
    return Response.json(await check(api, { baseUrl, token, id, where: 'next-edge' }));
  } catch (err) {
    return Response.json({ error: String(err) }, { status: 500 });
  }
}
