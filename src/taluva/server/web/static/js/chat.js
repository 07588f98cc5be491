// The game's chat: the players seated in the game write, everyone watching reads. Every
// message is shown as text (text nodes only, never markup). This browser may mute chosen
// players, or the whole chat; it remembers both.

import { h, clear } from "./dom.js";
import { t, tn } from "./i18n.js";

const MUTED_KEY = "taluva.chat.muted"; // JSON list of muted players' names, case-folded
const OFF_KEY = "taluva.chat.off";

function mutedNames() {
  try {
    const names = JSON.parse(localStorage.getItem(MUTED_KEY) || "[]");
    return new Set(Array.isArray(names) ? names : []);
  } catch {
    return new Set();
  }
}

function fold(name) {
  return String(name).toLocaleLowerCase();
}

export class ChatPanel {
  /** `send(message)` sends a WebSocket message and returns its ref (null when offline). */
  constructor(send, limits = {}) {
    this.send = send;
    this.messages = [];
    this.players = [];
    this.seats = [];
    this.pending = new Map(); // ref -> text sent
    this.muted = mutedNames();
    this.off = localStorage.getItem(OFF_KEY) === "on";
    this.list = h("ol", { class: "chat-log", "aria-label": t("Chat messages"), "aria-live": "polite", "data-empty": t("No messages yet.") });
    this.hidden = h("p", { class: "chat-hidden" });
    this.input = h("input", {
      class: "chat-input", autocomplete: "off", maxlength: limits.chat_chars || 500,
      placeholder: t("Say something to the table"), "aria-label": t("Chat message"),
    });
    this.problem = h("p", { class: "chat-problem", role: "alert" });
    this.form = h("form", { class: "chat-form", onsubmit: (event) => { event.preventDefault(); this.say(); } },
      this.input, h("button", { type: "submit" }, t("Send")));
    this.note = h("p", { class: "chat-note" }, t("Only the players write here; you are watching."));
    this.switch = h("button", { type: "button", class: "chat-switch", onclick: () => this.toggleOff() });
    this.mutes = h("div", { class: "chat-mutes", role: "group", "aria-label": t("Mute players") });
    this.body = h("div", { class: "chat-body" }, this.mutes, this.list, this.hidden, this.form, this.problem, this.note);
    this.node = h("section", { class: "chat", "aria-label": t("Chat") },
      h("div", { class: "chat-head" }, h("h3", {}, t("Chat")), this.switch), this.body);
    this.render();
  }

  /** The messages a welcome brings (the last ones of the game): they replace what was shown. */
  reset(messages) {
    this.messages = messages.slice();
    this.render();
  }

  update(players, seats) {
    const changed = JSON.stringify([players.map((p) => p.name), seats]) !== JSON.stringify([this.players.map((p) => p.name), this.seats]);
    this.players = players;
    this.seats = seats;
    if (changed) this.render();
  }

  onMessage(message) {
    if (message.type === "chat") {
      if (this.messages.some((m) => m.id === message.id)) return;
      const { type, ...stored } = message;
      this.messages.push(stored);
      if (this.messages.length > 200) this.messages.shift();
      this.render();
    } else if (message.type === "accepted" && this.pending.has(message.ref)) {
      this.pending.delete(message.ref);
      this.problem.textContent = "";
    }
  }

  /** A refused message: say why under the input and give its text back to correct. */
  onError(message) {
    if (!this.pending.has(message.ref)) return;
    const text = this.pending.get(message.ref);
    this.pending.delete(message.ref);
    this.problem.textContent = message.message;
    if (!this.input.value) this.input.value = text;
  }

  say() {
    const text = this.input.value.trim();
    if (!text) return;
    const ref = this.send({ type: "chat", text });
    if (ref === null) {
      this.problem.textContent = t("Not connected: the message was not sent.");
      return;
    }
    this.pending.set(ref, text);
    this.input.value = "";
    this.problem.textContent = "";
  }

  toggleOff() {
    this.off = !this.off;
    if (this.off) localStorage.setItem(OFF_KEY, "on");
    else localStorage.removeItem(OFF_KEY);
    this.render();
  }

  toggleMute(name) {
    const key = fold(name);
    this.muted = mutedNames(); // another tab may have changed the list
    if (this.muted.has(key)) this.muted.delete(key);
    else this.muted.add(key);
    localStorage.setItem(MUTED_KEY, JSON.stringify([...this.muted]));
    this.render();
  }

  render() {
    this.switch.textContent = this.off ? t("Unmute chat") : t("Mute chat");
    this.switch.setAttribute("aria-pressed", this.off ? "true" : "false");
    this.body.hidden = this.off;
    const writer = this.seats.length > 0;
    this.form.hidden = !writer;
    this.note.hidden = writer;
    const others = this.players.filter((p) => p.kind === "human" && !this.seats.includes(p.seat));
    clear(this.mutes, ...others.map((p) => {
      const muted = this.muted.has(fold(p.name));
      return h("button", {
        type: "button", class: "chat-mute", "aria-pressed": muted ? "true" : "false",
        title: muted ? t("Show {name}'s messages again", { name: p.name }) : t("Hide {name}'s messages in this browser", { name: p.name }),
        onclick: () => this.toggleMute(p.name),
      }, muted ? t("Unmute {name}", { name: p.name }) : t("Mute {name}", { name: p.name }));
    }));
    const shown = this.messages.filter((m) => !this.muted.has(fold(m.name)));
    const hiddenCount = this.messages.length - shown.length;
    this.hidden.textContent = hiddenCount ? tn("{n} message from muted players hidden.", "{n} messages from muted players hidden.", hiddenCount) : "";
    this.hidden.hidden = !hiddenCount;
    clear(this.list, ...shown.map((m) => h("li", { class: "chat-message", "data-seat": m.seat },
      h("span", { class: "chat-name" }, t("{name}:", { name: m.name }), " "),
      h("span", { class: "chat-text" }, m.text))));
    // Scrolled in the next frame, with the page's own layout, not forced right after writing.
    requestAnimationFrame(() => { this.list.scrollTop = this.list.scrollHeight; });
  }
}
