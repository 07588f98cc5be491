// Your-turn signals: while it is your move the tab's title and icon say so, and, if you
// turn them on, a browser notification and a short sound (made by the Web Audio API, no
// sound file) tell you when your move comes. Both toggles are off until you turn them on,
// and this browser remembers them.

import { h, toast } from "./dom.js";
import { t } from "./i18n.js";

const SOUND_KEY = "taluva.signals.sound";
const NOTIFY_KEY = "taluva.signals.notify";
const ICON = "/static/icon.svg";
const TURN_ICON = "/static/icon-turn.svg";
export const TURN_MARK = t("▶ Your turn");

let audio = null;

function remembered(key) {
  return localStorage.getItem(key) === "on";
}

function remember(key, on) {
  if (on) localStorage.setItem(key, "on");
  else localStorage.removeItem(key);
}

function setIcon(href) {
  let link = document.querySelector('link[rel="icon"]');
  if (!link) {
    link = h("link", { rel: "icon", type: "image/svg+xml" });
    document.head.appendChild(link);
  }
  if (link.getAttribute("href") !== href) link.setAttribute("href", href);
}

/** Two short rising tones, about a quarter of a second in all. */
export function chime() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return false;
  audio ??= new Context();
  if (audio.state === "suspended") audio.resume();
  const start = audio.currentTime + 0.01;
  [660, 880].forEach((frequency, index) => {
    const at = start + index * 0.12;
    const tone = audio.createOscillator();
    const volume = audio.createGain();
    tone.type = "sine";
    tone.frequency.value = frequency;
    volume.gain.setValueAtTime(0.0001, at);
    volume.gain.exponentialRampToValueAtTime(0.2, at + 0.02);
    volume.gain.exponentialRampToValueAtTime(0.0001, at + 0.11);
    tone.connect(volume).connect(audio.destination);
    tone.start(at);
    tone.stop(at + 0.12);
  });
  return true;
}

export class TurnSignals {
  constructor() {
    this.yourTurn = null; // unknown until the first state: the page's first state rings nothing
    this.rings = 0;
    this.sound = h("input", { type: "checkbox", class: "signal-sound", checked: remembered(SOUND_KEY), onchange: () => this.toggleSound() });
    this.notify = h("input", { type: "checkbox", class: "signal-notify", checked: remembered(NOTIFY_KEY) && this.permitted(), onchange: () => this.toggleNotify() });
    if (!("Notification" in window)) {
      this.notify.disabled = true;
      this.notify.title = t("This browser cannot show notifications");
    }
    this.node = h("div", { class: "signals", role: "group", "aria-label": t("Your-turn signals") },
      h("label", {}, this.sound, " ", t("Sound on my turn")),
      h("label", {}, this.notify, " ", t("Notify me on my turn")));
  }

  permitted() {
    return "Notification" in window && Notification.permission === "granted";
  }

  toggleSound() {
    remember(SOUND_KEY, this.sound.checked);
    if (this.sound.checked) chime(); // also unlocks audio: browsers allow it after a click
  }

  async toggleNotify() {
    if (!this.notify.checked) {
      remember(NOTIFY_KEY, false);
      return;
    }
    let permission = Notification.permission;
    if (permission === "default") permission = await Notification.requestPermission();
    if (permission !== "granted") {
      this.notify.checked = false;
      toast(t("Notifications are blocked for this site in the browser's settings."), "error");
    }
    remember(NOTIFY_KEY, this.notify.checked);
  }

  /** Show whether it is your move in the tab; ring when it has just become your move. */
  update(title, yourTurn) {
    document.title = yourTurn ? `${TURN_MARK} – ${title}` : title;
    setIcon(yourTurn ? TURN_ICON : ICON);
    if (yourTurn && this.yourTurn === false) this.ring(title);
    this.yourTurn = yourTurn;
  }

  ring(title) {
    this.rings += 1;
    document.body.dataset.turnRings = String(this.rings);
    if (this.sound.checked) chime();
    if (this.notify.checked && this.permitted() && document.hidden) {
      const note = new Notification(t("Taluva: your turn"), { body: title, tag: "taluva-turn" });
      note.onclick = () => { window.focus(); note.close(); };
    }
  }

  destroy() {
    setIcon(ICON);
    document.title = "Taluva";
    delete document.body.dataset.turnRings;
  }
}
