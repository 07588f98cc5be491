// The service worker, served at /sw.js by http/pages.py, which puts the line
// `const BUILD = {"version": ..., "files": [...]}` before this text: the hash of the client's
// files and their addresses. It keeps those files in a cache named after the hash (a new
// release is a new cache, the old one deleted), answers a page that cannot load offline with
// the offline page, and shows the notifications the server pushes. It never touches /api/
// requests or WebSockets: they go to the network as if it were not there.
/* global BUILD */

const CACHE = `taluva-${BUILD.version}`;
const OFFLINE_PAGE = "/static/offline.html";
const ICON = "/static/icons/icon-192.png";
const VERSION_HEADER = "x-taluva-static";
const STATIC_PREFIX = "/static/";

// Set when a page came from a server with other files than this worker's: until the newer
// worker takes over, the client's files come from the network, never from this old cache.
let outdated = false;

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll(BUILD.files.map((url) => new Request(url, { cache: "reload" })));
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name !== CACHE && name.startsWith("taluva-")) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") event.respondWith(navigate(request));
  else if (url.pathname.startsWith(STATIC_PREFIX)) event.respondWith(clientFile(request));
});

/** A page from the network; the offline page when the network cannot be reached. */
async function navigate(request) {
  let response;
  try {
    response = await fetch(request);
  } catch {
    const cache = await caches.open(CACHE);
    return (await cache.match(OFFLINE_PAGE)) ?? (await caches.match(OFFLINE_PAGE)) ?? Response.error();
  }
  const version = response.headers.get(VERSION_HEADER);
  if (version && version !== BUILD.version) {
    outdated = true;
    self.registration.update().catch(() => {});
  }
  return response;
}

/** One of the client's files: from the cache, else from the network (then kept). */
async function clientFile(request) {
  const cache = await caches.open(CACHE);
  if (outdated) return fetch(request).catch(async () => (await cache.match(request)) ?? Response.error());
  const kept = await cache.match(request);
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone());
  return response;
}

/** A page of this site to open: `url` when it is one, else the lobby. */
function siteUrl(url) {
  try {
    const parsed = new URL(url || "/", self.location.origin);
    return parsed.origin === self.location.origin ? parsed.href : new URL("/", self.location.origin).href;
  } catch {
    return new URL("/", self.location.origin).href;
  }
}

/** The notification a push message asks for: JSON {title, body, url, tag}. */
function pushed(data) {
  let message = {};
  try {
    message = data ? data.json() : {};
  } catch {
    message = { body: data.text() };
  }
  const options = { body: String(message.body ?? ""), icon: ICON, data: { url: siteUrl(message.url) } };
  if (message.tag) options.tag = String(message.tag);
  return { title: String(message.title || "Taluva"), options };
}

self.addEventListener("push", (event) => {
  const { title, options } = pushed(event.data);
  event.waitUntil(self.registration.showNotification(title, options));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(openPage(siteUrl(event.notification.data?.url)));
});

/** Show `url` in an open page of the site (brought to the front), or in a new window. */
async function openPage(url) {
  const pages = await self.clients.matchAll({ type: "window" });
  for (const page of pages) {
    try {
      const shown = await page.focus();
      await (shown ?? page).navigate(url);
      return;
    } catch {
      // this page cannot be brought forward or moved: try the next, then a new window
    }
  }
  await self.clients.openWindow(url);
}
