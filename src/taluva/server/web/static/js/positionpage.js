// A page that shows one position on the Board and lets the player place a tile and build
// there (the tutorial, the puzzles): its layout around the page's own card, and what
// BoardInput, BuildMenu and Explanations ask of the page that hosts them, beyond the page's
// own state and render.

import { Board } from "./board.js";
import { BoardInput } from "./boardinput.js";
import { tileToolSpan, tileTools, zoomButtons } from "./boardtools.js";
import { BuildMenu } from "./buildmenu.js";
import { h, clear } from "./dom.js";
import { t } from "./i18n.js";
import { tileFootprint, tileTerrains } from "./hex.js";
import { Explanations } from "./explain.js";
import { indexLegal, previewOf } from "./legal.js";
import { playerCard, showResult } from "./panels.js";
import { TilePanel } from "./tilepanel.js";

export class PositionPage {
  constructor() {
    this.orientation = 0;
    this.cursor = null;
    this.locked = false;
    this.mode = null;
    this.seats = [];
    this.legal = new Set();
    // Explanations ask "explain" of a game's socket; these pages answer them over HTTP.
    this.socket = { send: (message) => { this.explainRemote(message.move); return 1; } };
  }

  destroy() {
    this.gone = true;
    this.input.destroy();
  }

  /** Lay the page (class `pageClass`) out around its `card`: the board with its tools, then
   * the side with the tile, a move to type (`example` in its placeholder) and the players;
   * then make the board and its input. */
  layOut(pageClass, example) {
    this.tools = tileTools(this);
    this.toolbar = h("div", { class: "toolbar seated" }, ...zoomButtons(this), tileToolSpan(this.tools));
    this.tooltip = h("div", { class: "tooltip", role: "status", "aria-live": "polite" });
    this.banner = h("section", { class: "result-banner", role: "status", "aria-live": "polite", "aria-label": t("Result") });
    this.buildMenu = new BuildMenu(this);
    this.explanations = new Explanations(this);
    this.boardHost = h("div", { class: "board-host" });
    const boardWrap = h("section", { class: "board-wrap", "aria-label": t("Board") },
      this.banner, this.toolbar, this.boardHost, this.tooltip, this.buildMenu.node);
    this.tilePanel = new TilePanel(this);
    this.playersBox = h("div", { class: "players" });
    this.moveInput = h("input", { id: "move-input", autocomplete: "off", placeholder: t("or type the move, e.g. {example}", { example }), "aria-label": t("Move text") });
    this.moveForm = h("form", { class: "move-form", onsubmit: (e) => { e.preventDefault(); this.play(this.moveInput.value); } },
      this.moveInput, h("button", { type: "submit" }, t("Play")));
    // It scrolls when the page's words leave it little room: it takes the focus to be scrolled.
    const side = h("aside", { class: "side", tabindex: "0", "aria-label": t("The tile and the players") },
      this.tilePanel.node, this.moveForm, this.playersBox);
    clear(this.root, h("div", { class: pageClass }, this.card, boardWrap, side));
    this.input = new BoardInput(this);
    this.board = new Board(this.boardHost, this.config.style, {
      hover: (hex) => this.input.hover(hex),
      click: (hex, event) => this.input.click(hex, event),
      wheel: (event) => this.input.wheel(event),
      leave: () => this.input.leave(),
      turned: () => this.drawOverlays(),
    });
  }

  /** The page as its state stands: the tile, the players, the result, the tools, the card
   * (``renderCard``, the page's own) and the board's marks. */
  render() {
    const s = this.state;
    if (!s) return;
    this.tilePanel.render(s);
    this.renderPlayers(s);
    showResult(this.banner, this.shownResult(s), (seat) => this.board.playerColour(seat));
    this.moveForm.hidden = !this.myTurn();
    this.toolbar.querySelector(".tile-tools").hidden = !(this.myTurn() && this.mode);
    this.tools.place.disabled = !(this.locked && this.legal.has(this.ghostMove()));
    this.tools.cancel.hidden = !this.locked;
    this.renderCard();
    this.drawOverlays();
    this.buildMenu.render();
  }

  /** The result the banner shows: the state's. */
  shownResult(s) {
    return s.result;
  }

  renderPlayers(s) {
    const cards = s.players.map((p) => playerCard(s, p, {
      colour: this.board.playerColour(p.seat), yours: this.seats.includes(p.seat),
    }));
    clear(this.playersBox, ...cards);
    for (const swatch of this.playersBox.querySelectorAll(".swatch")) swatch.style.background = swatch.dataset.colour;
  }

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

  /** The keyboard's cursor, and what is about to be played: the tile under the pointer (its
   * legality shown) or the build chosen in the menu. */
  drawPending() {
    const keyboardCursor = this.input.keyboardCursor;
    this.board.overlays.setCursor(keyboardCursor && !this.mode ? keyboardCursor : null);
    if (this.myTurn() && this.mode && this.cursor) {
      const [q, r] = this.cursor;
      const hexes = tileFootprint(q, r, this.orientation);
      const terrains = tileTerrains(this.mode.code, false);
      this.board.overlays.setGhost({ hexes: hexes.map(([a, b], i) => [a, b, terrains[i]]), legal: this.legal.has(this.ghostMove()) });
    } else if (this.buildMenu.current?.selected) {
      this.board.overlays.setPreview(this.previewOf(this.buildMenu.current.selected));
    } else {
      this.board.overlays.setGhost(null);
    }
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
