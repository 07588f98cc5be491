// The win-chance bar: every player's winning chance in the current position, as the AI's game
// review reckons it, asked of the server after each move (the `chances` message). Off until
// turned on, and this browser remembers the choice; never offered in rated games, nor in
// games created without hints. An answer about a position the game has left is dropped.

import { h, clear } from "./dom.js";
import { lang, t } from "./i18n.js";

const PERCENT = new Intl.NumberFormat(lang, { style: "percent", maximumFractionDigits: 0 });

/** A chance in [0, 1] as the language writes a whole percentage: "63%", "63 %". */
export function percent(value) {
  return PERCENT.format(value);
}

const KEY = "taluva.winChance";
const GIVE_UP_MS = 15000; // an answer lost with its socket: ask again after this long

/** Whole percentages of chances in [0, 1]; when they add up to one, the percentages add up
 * to 100 (largest remainders), so a two-player bar never reads 63% and 38%. */
export function percentages(chances) {
  const raw = chances.map((c) => Math.max(0, Math.min(1, c)) * 100);
  const out = raw.map(Math.floor);
  const total = raw.reduce((a, b) => a + b, 0);
  if (Math.abs(total - 100) > 1) return raw.map(Math.round);
  let missing = 100 - out.reduce((a, b) => a + b, 0);
  const order = raw.map((value, seat) => [value - out[seat], seat]).sort((a, b) => b[0] - a[0]);
  for (const [, seat] of order) {
    if (missing <= 0) break;
    out[seat] += 1;
    missing -= 1;
  }
  return out;
}

/** The position of a state, as far as the chances go: its ply and who has left the game. */
function positionOf(state) {
  return `${state.ply}/${(state.resignations || []).length}`;
}

/** Whether the bar is offered for a game state: unrated, with hints, in play. */
export function offered(state) {
  return !!state && !state.rated && state.hints && state.status === "live" && !state.result;
}

export class WinChancePanel {
  /** `send(message)` sends on the game's socket and returns its ref (null when offline);
   * `colourOf(seat)` is the seat's colour on the board. */
  constructor(send, colourOf) {
    this.send = send;
    this.colourOf = colourOf;
    this.state = null;
    this.asked = null; // {ref, ply, at}
    this.shown = null; // the position (positionOf) whose chances are on screen
    this.toggle = h("input", { type: "checkbox", id: "win-chance-toggle", checked: localStorage.getItem(KEY) === "on", onchange: () => this.switched() });
    this.bar = h("div", { class: "win-chance-bar", "aria-hidden": "true" });
    this.words = h("p", { class: "win-chance-words", role: "status", "aria-live": "polite" });
    this.box = h("div", { class: "win-chance-box", hidden: true }, this.bar, this.words);
    this.node = h("section", { class: "win-chance", "aria-label": t("Win chances"), hidden: true },
      h("label", { for: "win-chance-toggle", title: t("Each player's chance to win now, as the AI's game review reckons it") },
        this.toggle, " ", t("Show win chances")),
      this.box);
    if (this.on) clear(this.words, t("Computing the chances…"));
  }

  get on() {
    return this.toggle.checked;
  }

  switched() {
    if (this.on) localStorage.setItem(KEY, "on");
    else localStorage.removeItem(KEY);
    this.shown = null;
    if (this.on) clear(this.words, t("Computing the chances…"));
    this.update(this.state);
  }

  /** Follow the game: show or hide the panel, and ask for the chances of a new position. */
  update(state) {
    this.state = state;
    const shown = offered(state);
    this.node.hidden = !shown;
    this.box.hidden = !shown || !this.on;
    if (!shown || !this.on || this.shown === positionOf(state)) return;
    if (this.asked && performance.now() - this.asked.at < GIVE_UP_MS) return; // the answer asks again
    const ref = this.send({ type: "chances", state: state.ply });
    this.asked = ref === null ? null : { ref, ply: state.ply, at: performance.now() };
  }

  /** A `chances` answer: shown if it is about the position on screen, else dropped. */
  onMessage(message) {
    if (this.asked && message.ref === this.asked.ref) this.asked = null;
    if (this.on && this.state && message.ply === this.state.ply) this.render(message.chances);
    else this.update(this.state);
  }

  /** An `error` message: true if it answers this panel's question (then it is handled here). */
  onError(message) {
    if (!this.asked || message.ref !== this.asked.ref) return false;
    const ply = this.asked.ply;
    this.asked = null;
    if (this.state && this.state.ply !== ply) {
      this.update(this.state); // the game moved on: ask about where it is now
    } else if (message.code !== "stale") {
      this.shown = this.state ? positionOf(this.state) : null;
      clear(this.bar);
      clear(this.words, t("No win chances: {reason}", { reason: message.message }));
    } // stale about the position on screen: the new one's broadcast is on its way, and asks
    return true;
  }

  render(chances) {
    this.shown = positionOf(this.state);
    const players = this.state.players;
    const shares = percentages(chances);
    const total = chances.reduce((a, b) => a + b, 0) || 1;
    const segments = chances.map((chance, seat) => {
      const segment = h("span", { class: "win-chance-segment", "data-seat": seat });
      segment.style.background = this.colourOf(seat);
      segment.style.flexGrow = String(chance / total);
      return segment;
    });
    clear(this.bar, ...segments);
    const items = players.map((player, seat) => {
      const swatch = h("span", { class: "swatch", "aria-hidden": "true" });
      swatch.style.background = this.colourOf(seat);
      const comma = seat < players.length - 1 ? h("span", { class: "visually-hidden" }, ", ") : null;
      return h("span", { class: "win-chance-player", "data-seat": seat }, swatch, t("{name} {chance}", { name: player.name, chance: percent(shares[seat] / 100) }), comma);
    });
    clear(this.words, h("span", { class: "visually-hidden" }, t("Win chances:"), " "), ...items);
    this.words.dataset.ply = String(this.state.ply);
  }
}
