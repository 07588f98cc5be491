// A page that shows one position on the Board and lets the player place a tile and build
// there (the tutorial, the puzzles): what BoardInput, BuildMenu and Explanations ask of the
// page that hosts them, beyond the page's own state, board and render.

import { indexLegal, previewOf } from "./legal.js";

export class PositionPage {
  get replay() {
    return null;
  }

  get tileSpots() {
    return this.indexed().tileSpots;
  }

  get buildsByHex() {
    return this.indexed().buildsByHex;
  }

  indexed() {
    this.legalIndex ??= indexLegal(this.state?.legal, this.state?.lagoons);
    return this.legalIndex;
  }

  tileCode() {
    return "tile";
  }

  ghostMove() {
    if (!this.mode || !this.cursor) return null;
    const [q, r] = this.cursor;
    return `tile ${q},${r} ${this.orientation}`;
  }

  previewOf(text, player = this.state.to_move) {
    return previewOf(text, player, (q, r) => this.board.level(q, r));
  }

  svgFocus() {
    if (document.activeElement !== this.board.svg) this.board.svg.focus({ preventScroll: true });
  }

  announce(text) {
    this.tooltip.className = "tooltip";
    this.tooltip.textContent = text;
  }

  rotate(step) {
    this.orientation = (this.orientation + step + 6) % 6;
    this.render();
    this.explanations.ghost();
  }

  unlock() {
    this.locked = false;
    this.render();
  }

  confirmTile() {
    const move = this.ghostMove();
    if (move) this.play(move);
  }

  takeDouble() {}
}
