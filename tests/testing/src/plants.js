// The app: a form's issues as the user types, and the call that saves a plant.
import { createPlant, PlantStoreError, validateNewPlant } from 'plant-store-client';
import { API } from './api.js';

/** The form's issues by field, for the user as they type. */
export function issues(form) {
  const result = validateNewPlant(form);
  return result.ok ? {} : Object.fromEntries(result.issues.map((i) => [i.path, i.message]));
}

/** Saves `plant` with `token`; resolves to what the page shows. */
export async function save(plant, token) {
  try {
    const created = await createPlant(plant, { baseUrl: API, token });
    return `Created ${created.name}`;
  } catch (err) {
    if (err instanceof PlantStoreError && err.kind === 'rejected') return `Refused: ${err.message}`;
    throw err;
  }
}
