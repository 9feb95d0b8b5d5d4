// The dashboard's calls to its HTTP API: JSON reads and posts with the token (when the
// server wants one; kept in sessionStorage), typed errors surfaced as ApiError, and live
// streams read from fetch (so the token goes in a header, never in a URL).

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.error?.code ?? 'HTTP';
  }
}

const TOKEN_KEY = 'weft-dashboard-token';
let onUnauthorized = () => {};

export function setUnauthorizedHandler(fn) {
  onUnauthorized = fn;
}
/** Whether a token is kept for this tab. */
export function hasToken() {
  return Boolean(sessionStorage.getItem(TOKEN_KEY));
}
export function setToken(token) {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}
function headers(extra = {}) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? { ...extra, authorization: `Bearer ${token}` } : extra;
}

async function parse(response) {
  const text = await response.text();
  let body = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = { error: { message: text } };
  }
  if (!response.ok) {
    if (response.status === 401) onUnauthorized();
    throw new ApiError(response.status, body);
  }
  return body;
}

export async function get(path, signal) {
  return parse(await fetch(path, { headers: headers(), signal }));
}

export async function post(path, body = {}) {
  return parse(
    await fetch(path, {
      method: 'POST',
      headers: headers({ 'content-type': 'application/json' }),
      body: JSON.stringify(body),
    }),
  );
}

/**
 * Reads a server-sent event stream; calls onEvent(name, data) per event. Returns a stop
 * function. Reconnects after a pause when the stream drops (not after stop()).
 */
export function stream(path, onEvent, { onState = () => {}, reconnect = true } = {}) {
  let controller = new AbortController();
  let stopped = false;
  const run = async () => {
    while (!stopped) {
      controller = new AbortController();
      try {
        const response = await fetch(path, { headers: headers(), signal: controller.signal });
        if (!response.ok) {
          await parse(response);
          return;
        }
        onState(true);
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          let cut = buffer.indexOf('\n\n');
          while (cut >= 0) {
            const chunk = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            let name = 'message';
            const data = [];
            for (const line of chunk.split('\n')) {
              if (line.startsWith('event:')) name = line.slice(6).trim();
              else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
            }
            if (data.length) onEvent(name, JSON.parse(data.join('\n')));
            cut = buffer.indexOf('\n\n');
          }
        }
      } catch (error) {
        if (stopped || error?.name === 'AbortError') return;
        if (error instanceof ApiError && error.status < 500) return;
      } finally {
        onState(false);
      }
      if (!reconnect || stopped) return;
      await new Promise((resolve) => setTimeout(resolve, 1500));
    }
  };
  run();
  return () => {
    stopped = true;
    controller.abort();
  };
}
