// Pointer, wheel and keys on the board. In the tile phase the ghost tile follows the pointer
// until a click locks it (a second click, Enter or "Place tile" plays it); in the build phase
// a click opens the hex's build menu. Every action has a key: arrows move a cursor, R turns
// the tile, Enter acts, Escape steps back, + - 0 zoom.

import { key, parseKey } from "./hex.js";
import { t } from "./i18n.js";

const KEY_MOVES = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

/** Whether a key pressed in `target` is the page's to handle rather than a text field's. */
function typing(target) {
  return target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement;
}

export class BoardInput {
  /** `page` is the GamePage: its tile placement (mode, cursor, locked, orientation), the
   * build menu, the explanations and the board. */
  constructor(page) {
    this.page = page;
    this.keyboardCursor = null; // the build phase's cursor, moved by the arrows
    this.keyHandler = (event) => this.key(event);
    document.addEventListener("keydown", this.keyHandler);
  }

  destroy() {
    document.removeEventListener("keydown", this.keyHandler);
  }

  hover(hex) {
    const page = this.page;
    if (!page.myTurn() || !page.mode || page.locked) {
      if (page.myTurn() && page.state.phase === "build" && !page.buildMenu.current) page.explanations.buildHover(hex);
      return;
    }
    if (page.cursor && page.cursor[0] === hex[0] && page.cursor[1] === hex[1]) return;
    page.cursor = hex;
    page.drawOverlays();
    page.explanations.ghost();
  }

  click(hex, event) {
    const page = this.page;
    page.svgFocus();
    if (!page.myTurn()) return;
    if (page.mode) {
      if (page.locked && page.cursor && key(...page.cursor) === key(...hex)) {
        page.confirmTile();
        return;
      }
      this.lockAt(hex);
      return;
    }
    if (page.state.phase === "build") page.buildMenu.open(hex, event?.pointerType === "touch");
  }

  /** Turn the tile with the wheel; false when there is no tile to turn (the board zooms). */
  wheel(event) {
    const page = this.page;
    if (!page.myTurn() || !page.mode) return false;
    page.rotate(event.deltaY < 0 ? 1 : -1);
    return true;
  }

  /** The pointer left the board: a tile that follows it is hidden. */
  leave() {
    const page = this.page;
    if (!page.locked && page.mode) {
      page.cursor = null;
      page.drawOverlays();
    }
  }

  lockAt(hex) {
    const page = this.page;
    page.cursor = hex;
    page.locked = true;
    page.render();
    page.explanations.ghost();
  }

  key(event) {
    const page = this.page;
    if (!page.root.isConnected || typing(event.target)) return;
    const board = page.board;
    const onBoard = event.target === board.svg || event.target === document.body;
    if (event.key === "Escape") {
      if (page.buildMenu.current) { page.buildMenu.close(); event.preventDefault(); return; }
      if (page.locked) { page.unlock(); event.preventDefault(); return; }
    }
    if (!onBoard) return;
    if (event.key === "+" || event.key === "=") { board.zoom(0.8); return; }
    if (event.key === "-") { board.zoom(1.25); return; }
    if (event.key === "0") { board.fit(); return; }
    if (!page.myTurn()) return;
    if (event.key === "r" || event.key === "R") {
      event.preventDefault();
      page.rotate(event.shiftKey ? -1 : 1);
      return;
    }
    if (KEY_MOVES[event.key]) {
      event.preventDefault();
      this.step(...KEY_MOVES[event.key]);
      return;
    }
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      if (page.mode) {
        if (!page.cursor) { page.cursor = this.defaultCursor(); page.locked = true; page.render(); return; }
        if (!page.locked) { page.locked = true; page.render(); return; }
        page.confirmTile();
      } else if (page.state.phase === "build") {
        page.buildMenu.open(this.keyboardCursor || this.defaultCursor());
      }
    }
  }

  /** Move the tile, or the build phase's cursor, one hex (to a first spot if there is none). */
  step(dq, dr) {
    const page = this.page;
    const from = page.mode ? page.cursor : this.keyboardCursor;
    const start = from || this.defaultCursor();
    const next = from ? [start[0] + dq, start[1] + dr] : start;
    if (page.mode) {
      this.lockAt(next);
    } else {
      this.keyboardCursor = next;
      page.drawOverlays();
      page.announce(t("Cursor on {hex}", { hex: key(...next) }));
    }
  }

  /** Where a keyboard player starts: the first legal spot of the tile as turned, or the first
   * hex with a build. */
  defaultCursor() {
    const page = this.page;
    if (page.mode) {
      const spots = page.tileSpots.get(`${page.tileCode()}|${page.orientation}`);
      if (spots && spots.length) return spots[0];
    }
    const first = page.buildsByHex.keys().next();
    return first.done ? [0, 0] : parseKey(first.value);
  }
}
