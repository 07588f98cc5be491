// "Notifications on this device", a section of the account settings page: turning web push
// on in this browser (the permission asked, the service worker's push subscription made with
// the server's VAPID key and sent to the server), a switch per kind of notice for this device,
// turning it off, and the account's other devices. Where the browser cannot, it says why.

import { ApiError, api } from "./api.js";
import { currentAccount } from "./account.js";
import { h, clear, toast } from "./dom.js";
import { t } from "./i18n.js";

const READY_WAIT_MS = 10000;
const DEVICE_KEY = "taluva.pushDevice";

function words(error) {
  const text = error instanceof ApiError ? error.message : String(error?.message || error);
  return text ? text[0].toUpperCase() + text.slice(1) + (text.endsWith(".") ? "" : ".") : "";
}

/** The bytes of URL-safe base64 (the server's key, as `applicationServerKey` takes it). */
function bytesOf(text) {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4);
  return Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
}

/** A short name of this browser for the list of devices, such as "Firefox on Linux" (in the
 * language of the page that turned notifications on: the server keeps it as given). */
function deviceLabel() {
  const agent = navigator.userAgent;
  const browser = BROWSERS.find(([mark]) => agent.includes(mark))?.[1];
  const system = SYSTEMS.find(([mark]) => agent.includes(mark))?.[1];
  if (!browser) return system ? t("A browser on {system}", { system }) : t("A browser");
  return system ? t("{browser} on {system}", { browser, system }) : browser;
}

// Product names, the same in every language.
const BROWSERS = [["Edg/", "Edge"], ["OPR/", "Opera"], ["Firefox/", "Firefox"], ["Chrome/", "Chrome"], ["Safari/", "Safari"]];
const SYSTEMS = [["Android", "Android"], ["iPhone", "iPhone"], ["iPad", "iPad"], ["Windows", "Windows"], ["Mac OS", "macOS"], ["CrOS", "ChromeOS"], ["Linux", "Linux"]];

/** Why this browser cannot take push notifications at all, or null when it can. */
function missing() {
  if (!window.isSecureContext) return t("Notifications need the site over https: this page was opened over plain http.");
  if (!("serviceWorker" in navigator)) return t("This browser cannot run the site in the background (no service workers), so it cannot show notifications. A private window may be the reason.");
  if (!("PushManager" in window) || !("Notification" in window)) {
    return /iPhone|iPad/.test(navigator.userAgent)
      ? t("On an iPhone or iPad, notifications work once the site is added to the home screen (Share, Add to Home Screen) and opened from there.")
      : t("This browser has no Push API, so it cannot show notifications from a web site.");
  }
  return null;
}

/** A notice switch's words, one whole sentence per kind (the server's own words for a kind
 * this page does not know). */
function pushSwitchWords(kind, about) {
  switch (kind) {
    case "move": return t("Notify me of your move in a turn-based game");
    case "challenge": return t("Notify me of a challenge from another player");
    case "rematch": return t("Notify me of a rematch offered after a game you played");
    case "end": return t("Notify me of the result of a game you played, when it ends");
    case "clock": return t("Notify me of a turn-based game's clock about to run out on your turn");
    default: return t("Notify me of: {about}", { about });
  }
}

/** The site's service worker, or null when none takes charge within READY_WAIT_MS. */
async function worker() {
  const timeout = new Promise((resolve) => setTimeout(() => resolve(null), READY_WAIT_MS));
  return Promise.race([navigator.serviceWorker.ready, timeout]);
}

export class PushSettings {
  constructor() {
    this.node = h("section", { class: "my-section", id: "settings-push" });
    this.status = h("p", { class: "hint-line", id: "push-status", role: "status", "aria-live": "polite" });
    this.body = h("div", { id: "push-body" });
    this.others = h("div", { id: "push-others" });
    clear(this.node, h("h2", {}, t("Notifications on this device")), this.status, this.body, this.others);
    this.key = null;
    this.device = null;
    if (currentAccount()) this.load();
    else this.node.hidden = true;
  }

  say(text) {
    this.status.textContent = text;
  }

  async load() {
    const why = missing();
    if (why) return this.say(why);
    try {
      this.key = (await api("GET", "/api/push/key")).key;
    } catch (error) {
      return this.say(error instanceof ApiError && error.code === "push-off"
        ? t("This server sends no notifications: its host has not set them up.")
        : words(error));
    }
    if (Notification.permission === "denied") {
      return this.say(t("Notifications are blocked for this site in this browser's settings. Allow them there, then open this page again."));
    }
    const registration = await worker();
    if (!registration) return this.say(t("The site's service worker is not running in this browser, so notifications cannot be turned on. Reload the page and try again."));
    this.registration = registration;
    const subscription = await registration.pushManager.getSubscription();
    const known = Number(localStorage.getItem(DEVICE_KEY));
    if (subscription && known && Notification.permission === "granted") {
      try {
        // renewed (its keys may have changed) only while the account still has this device:
        // removed from another device, or subscribed by another account, it stays off
        const { devices } = await api("GET", "/api/push/subscriptions");
        if (devices.some((device) => device.id === known)) await this.send(subscription);
      } catch (error) {
        this.say(words(error));
      }
    }
    this.show();
    this.listOthers();
  }

  /** Give the server this browser's subscription (again: it renews the same device), and
   * remember which device this browser is. */
  async send(subscription) {
    this.device = await api("POST", "/api/push/subscriptions", { ...subscription.toJSON(), label: deviceLabel() });
    localStorage.setItem(DEVICE_KEY, String(this.device.id));
  }

  show() {
    if (!this.device) {
      this.say(t("Get a notification on this device when it is your move, when somebody challenges you, and more, even with the site closed."));
      const on = h("button", { type: "button", class: "primary", id: "push-on", onclick: () => this.turnOn(on) }, t("Turn notifications on"));
      clear(this.body, on);
      return;
    }
    this.say(t("Notifications are on for this device ({device}). A notification opens the game it is about.", { device: this.device.label }));
    const off = h("button", { type: "button", id: "push-off", onclick: () => this.turnOff(off) }, t("Turn notifications off on this device"));
    clear(this.body, ...this.device.switches.map((entry) => this.switchBox(entry)), off);
  }

  async turnOn(button) {
    button.disabled = true;
    try {
      const permission = await Notification.requestPermission();
      if (permission !== "granted") {
        this.say(permission === "denied"
          ? t("Notifications are blocked for this site. Allow them in this browser's settings, then try again.")
          : t("No notifications: the browser's question was closed without an answer. Try again to allow them."));
        return;
      }
      const options = { userVisibleOnly: true, applicationServerKey: bytesOf(this.key) };
      let subscription;
      try {
        subscription = await this.registration.pushManager.subscribe(options);
      } catch (error) {
        // a subscription made for another key of the server: replace it
        const old = await this.registration.pushManager.getSubscription();
        if (!old) throw error;
        await old.unsubscribe();
        subscription = await this.registration.pushManager.subscribe(options);
      }
      await this.send(subscription);
      this.show();
      this.listOthers();
      toast(t("Notifications are on for this device."));
    } catch (error) {
      this.say(t("Notifications could not be turned on: {error}", { error: words(error) }));
    } finally {
      button.disabled = false;
    }
  }

  async turnOff(button) {
    button.disabled = true;
    try {
      await api("DELETE", `/api/push/subscriptions/${this.device.id}`).catch((error) => {
        if (!(error instanceof ApiError && error.code === "no-device")) throw error;
      });
      const subscription = await this.registration.pushManager.getSubscription();
      if (subscription) await subscription.unsubscribe();
      this.device = null;
      localStorage.removeItem(DEVICE_KEY);
      this.show();
      this.listOthers();
    } catch (error) {
      toast(words(error), "error");
    } finally {
      button.disabled = false;
    }
  }

  switchBox({ kind, about, on }) {
    const box = h("input", { type: "checkbox", id: `push-${kind}`, checked: on,
      onchange: async () => {
        box.disabled = true;
        try {
          this.device = await api("PATCH", `/api/push/subscriptions/${this.device.id}`, { kind, on: box.checked });
        } catch (error) {
          box.checked = !box.checked;
          toast(words(error), "error");
        } finally {
          box.disabled = false;
        }
      } });
    return h("label", { class: "switch-line", for: `push-${kind}` }, box, " ", pushSwitchWords(kind, about));
  }

  /** The account's other devices with notifications on, each with a button to remove it. */
  async listOthers() {
    let devices;
    try {
      ({ devices } = await api("GET", "/api/push/subscriptions"));
    } catch {
      return;
    }
    const others = devices.filter((device) => device.id !== this.device?.id);
    clear(this.others, ...(others.length ? [h("p", {}, t("Your other devices with notifications on:")),
      h("ul", { id: "push-devices" }, ...others.map((device) => h("li", {}, `${device.label} `,
        h("button", { type: "button", onclick: async () => {
          await api("DELETE", `/api/push/subscriptions/${device.id}`).catch(() => {});
          this.listOthers();
        } }, t("Remove")))))] : []));
  }
}

/** Put the notifications section into the account settings page, before `next`. */
export function mountPushSettings(next) {
  const settings = new PushSettings();
  next.before(settings.node);
  return settings;
}
