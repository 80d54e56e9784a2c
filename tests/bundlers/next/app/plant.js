'use client';
// A client component: imports the package (the browser build, index.js) and, once in the browser,
// makes the call of check.mjs; the summary goes to window.result.
import { useEffect } from 'react';
import * as api from 'plant-store-client';
import { check } from '../check.mjs';

export default function Plant() {
  useEffect(() => {
    const params = new URLSearchParams(location.search);
    check(api, {
      baseUrl: params.get('base'),
      token: params.get('token'),
      id: params.get('id'),
      where: 'next-client',
    }).then(
      (result) => {
        window.result = result;
      },
      (err) => {
        window.result = { error: String(err) };
      },
    );
  }, []);
  return <p>plant-store-client in a client component</p>;
}
