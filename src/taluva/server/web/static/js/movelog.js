// The move log of the game page: one entry a turn, one button a move (its words, the notation
// on hover), a click showing the position after it. Kept up to date by adding the moves that
// are new rather than building the whole list again for every state: with a long game that
// rebuild was most of the page's layout work after each move.

import { h, clear } from "./dom.js";
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
   * Show the moves of state `s`, marking the one after which `current` (a ply, or null) is
   * shown; with `follow`, scroll to the newest move when moves were added.
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
    if (this.current !== current) {
      this.buttons[this.current - 1]?.classList.remove("current");
      this.buttons[current - 1]?.classList.add("current");
      this.current = current;
    }
    // Scrolled in the next frame, whose layout is due anyway (reading scrollHeight now would
    // force one more layout of the whole page).
    if (added > 0 && follow) requestAnimationFrame(() => { this.list.scrollTop = this.list.scrollHeight; });
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
        const items = h("li", {}, h("span", { class: "who" }, `${s.players[seat]?.name ?? "?"}: `));
        this.turn = { seat, items };
        fresh.push(items);
      }
      const button = h("button", {
        type: "button", class: "log-move",
        title: `${text} (move ${ply + 1}: show the position after it)`, "data-move": text,
        "data-ply": ply + 1,
      }, said[ply].words, h("code", { class: "notation" }, text));
      this.turn.items.appendChild(button);
      this.turn.previous = kind;
      this.buttons.push(button);
      this.moves.push(text);
    }
    this.list.append(...fresh);
  }
}
