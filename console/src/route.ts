import { useEffect, useState } from 'react';

/**
 * The page's routes live in the URL's hash (#/orders/ID), so the backend serves one page for every
 * path, a link can be shared, and Back works.
 */
export type Route =
  | { readonly view: 'dashboard' }
  | { readonly view: 'orders'; readonly state?: string }
  | { readonly view: 'order'; readonly orderId: string }
  | { readonly view: 'deliveries'; readonly status?: string }
  | { readonly view: 'delivery'; readonly deliveryId: string };

export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#/, '').split('?');
  const params = new URLSearchParams(query);
  const [, section, id] = path.split('/');
  const decoded = id ? decodeURIComponent(id) : undefined;
  if (section === 'dashboard') return { view: 'dashboard' };
  if (section === 'deliveries') {
    if (decoded) return { view: 'delivery', deliveryId: decoded };
    const status = params.get('status');
    return { view: 'deliveries', ...(status && { status }) };
  }
  if (decoded) return { view: 'order', orderId: decoded };
  const state = params.get('state');
  return { view: 'orders', ...(state && { state }) };
}

export const href = {
  dashboard: () => '#/dashboard',
  orders: (state?: string) => `#/orders${state ? `?state=${encodeURIComponent(state)}` : ''}`,
  order: (orderId: string) => `#/orders/${encodeURIComponent(orderId)}`,
  deliveries: (status?: string) => `#/deliveries${status ? `?status=${encodeURIComponent(status)}` : ''}`,
  delivery: (deliveryId: string) => `#/deliveries/${encodeURIComponent(deliveryId)}`,
};

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return route;
}
