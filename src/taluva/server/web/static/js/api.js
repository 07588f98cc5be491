// Talking to the server: JSON over HTTP, seat tokens kept in this browser, and a game
// socket that reconnects by itself and resumes where it was.

import { t } from "./i18n.js";

const TOKENS_KEY = "taluva.tokens";
const NAME_KEY = "taluva.name";

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["content-type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (error) {
    throw new ApiError(0, "offline", t("the server cannot be reached"));
  }
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = data.error || {};
    throw new ApiError(response.status, error.code || "error", error.message || response.statusText);
  }
  return data;
}

/** Seat tokens this browser holds: {gameId: {seat: token}}. Never sent to anyone but the
 * server, and only in a WebSocket hello or an Authorization header. */
export const tokens = {
  all() {
    try {
      return JSON.parse(localStorage.getItem(TOKENS_KEY) || "{}");
    } catch {
      return {};
    }
  },
  forGame(gameId) {
    return this.all()[gameId] || {};
  },
  add(gameId, seat, token) {
    const all = this.all();
    all[gameId] = { ...(all[gameId] || {}), [seat]: token };
    localStorage.setItem(TOKENS_KEY, JSON.stringify(all));
  },
};

export const playerName = {
  get() { return localStorage.getItem(NAME_KEY) || ""; },
  set(name) { localStorage.setItem(NAME_KEY, name); },
};

/** One game's WebSocket: sends hello with this browser's tokens, reconnects with backoff
 * and, on reconnecting, asks for what it missed. */
export class GameSocket {
  constructor(gameId, handlers) {
    this.gameId = gameId;
    this.handlers = handlers;
    this.ply = null;
    this.delay = 250;
    this.closed = false;
    this.nextRef = 1;
    this.connect();
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws/games/${encodeURIComponent(this.gameId)}`);
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.delay = 250;
      const hello = { type: "hello", tokens: Object.values(tokens.forGame(this.gameId)) };
      if (this.ply !== null) hello.since = this.ply;
      ws.send(JSON.stringify(hello));
      this.handlers.status?.("connected");
    });
    ws.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.state) this.ply = message.state.ply;
      this.handlers.message?.(message);
    });
    ws.addEventListener("close", (event) => {
      if (this.closed) return;
      if (event.code === 4404) {
        this.handlers.status?.("missing");
        return;
      }
      // 4429: this address holds too many sockets; wait the longest before trying again.
      if (event.code === 4429) this.delay = 5000;
      this.handlers.status?.("reconnecting");
      setTimeout(() => this.connect(), this.delay);
      this.delay = Math.min(this.delay * 2, 5000);
    });
  }

  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return null;
    const ref = this.nextRef++;
    this.ws.send(JSON.stringify({ ...message, ref }));
    return ref;
  }

  close() {
    this.closed = true;
    this.ws?.close();
  }
}
