// The move log of the game page: one entry a turn, one button a move (its words, the notation
// on hover), a click showing the position after it. Kept up to date by adding the moves that
// are new rather than building the whole list again for every state: with a long game that
// rebuild was most of the page's layout work after each move. In a replay the whole game
// stays listed: the move shown is marked and the moves after it are dimmed, a click away.

import { h, clear } from "./dom.js";
import { t } from "./i18n.js";
import { movesInWords } from "./movewords.js";

const TILE_PHASE = new Set(["tile", "draw", "double"]);

export class MoveLog {
  /** `list` is the log's <ol>; `choose(ply)` shows the position after move `ply`. */
  constructor(list, choose) {
    this.list = list;
    this.choose = choose;
    this.moves = [];
    this.names = null;
    this.buttons = [];
    this.turn = null; // {seat, items (the entry's <li>), previous (kind of the last move)}
    this.current = null;
    // One listener for the whole log: a long game has hundreds of moves.
    list.addEventListener("click", (event) => {
      const button = event.target.closest?.("button.log-move");
      if (button && list.contains(button)) this.choose(Number(button.dataset.ply));
    });
  }

  /**
   * Show the moves of state `s` (the live game's, even in a replay), marking the one after
   * which `current` (a ply, or null) is shown; with `follow`, scroll to the newest move when
   * moves were added.
   */
  show(s, current, follow) {
    const names = JSON.stringify(s.players.map((p) => p.name));
    const kept = names === this.names && this.moves.length <= s.moves.length
      && this.moves.every((text, ply) => s.moves[ply] === text);
    if (!kept) {
      clear(this.list);
      this.moves = [];
      this.buttons = [];
      this.turn = null;
      this.current = null;
      this.names = names;
    }
    const added = s.moves.length - this.moves.length;
    if (added > 0) this.add(s, this.moves.length);
    if (this.current !== current) this.mark(current);
    // Scrolled in the next frame, whose layout is due anyway (reading scrollHeight now would
    // force one more layout of the whole page).
    if (added > 0 && follow) requestAnimationFrame(() => { this.list.scrollTop = this.list.scrollHeight; });
  }

  /** Mark the move after which `current` (a ply, or null: the live game) is shown, dim the
   * moves after it (only those whose state changes), and scroll the log to it. */
  mark(current) {
    const old = this.current;
    const before = this.buttons[old - 1];
    before?.classList.remove("current");
    before?.removeAttribute("aria-current");
    const now = this.buttons[current - 1];
    now?.classList.add("current");
    now?.setAttribute("aria-current", "step");
    const from = this.laterFrom(old);
    const to = this.laterFrom(current);
    for (let i = Math.min(from, to); i < Math.max(from, to); i += 1) {
      this.buttons[i].classList.toggle("later", i >= to);
    }
    this.current = current;
    if (now) requestAnimationFrame(() => this.reveal(now));
  }

  /** The index of the first button after the position shown (none in the live game). */
  laterFrom(current) {
    return current === null ? this.buttons.length : current;
  }

  /** Scroll the log (not the page) so that `button` is in it. */
  reveal(button) {
    if (!button.isConnected) return;
    const list = this.list.getBoundingClientRect();
    const box = button.getBoundingClientRect();
    if (box.top < list.top) this.list.scrollTop -= list.top - box.top;
    else if (box.bottom > list.bottom) this.list.scrollTop += box.bottom - list.bottom;
  }

  /** Append the moves of `s` from ply `first` on, grouped into turns as a player plays them. */
  add(s, first) {
    const said = movesInWords(s);
    const fresh = [];
    for (let ply = first; ply < s.moves.length; ply += 1) {
      const text = s.moves[ply];
      const seat = s.movers?.[ply];
      const kind = text.split(" ")[0];
      const startsTurn = TILE_PHASE.has(kind) && this.turn?.previous !== "draw";
      if (!this.turn || startsTurn || seat !== this.turn.seat) {
        const items = h("li", {}, h("span", { class: "who" }, t("{name}:", { name: s.players[seat]?.name ?? "?" }), " "));
        this.turn = { seat, items };
        fresh.push(items);
      }
      const button = h("button", {
        type: "button", class: "log-move",
        title: t("{move} (move {n}: show the position after it)", { move: text, n: ply + 1 }), "data-move": text,
        "data-ply": ply + 1,
      }, said[ply].words, h("code", { class: "notation" }, text));
      if (this.current !== null && ply >= this.current) button.classList.add("later");
      this.turn.items.appendChild(button);
      this.turn.previous = kind;
      this.buttons.push(button);
      this.moves.push(text);
    }
    this.list.append(...fresh);
  }
}
