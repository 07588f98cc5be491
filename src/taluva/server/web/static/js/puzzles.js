// Puzzles (#/puzzles): a position from a real game where one turn wins at once, on the game
// page's board. The solver places the tile (the server sends the position after it, with the
// legal builds), then builds; the server judges the turn with the engine and answers right or
// wrong, in words, with the winning turn drawn on the board. Signed-in players have a puzzle
// rating (and so do the puzzles) and a streak kept by the server; a guest's streak is kept in
// this browser. A theme may be chosen; the next puzzle is one near the player's rating.
// The board's tools are the game page's (build menu, tile panel, explanations, keys): this
// page offers them the same surface as a game page does.

import { api, ApiError } from "./api.js";
import { Board } from "./board.js";
import { BoardInput } from "./boardinput.js";
import { BuildMenu } from "./buildmenu.js";
import { h, clear, toast } from "./dom.js";
import { Explanations } from "./explain.js";
import { parseKey, tileFootprint, tileTerrains } from "./hex.js";
import { PositionPage } from "./positionpage.js";
import { lastTurns } from "./movewords.js";
import { playerCard, showResult } from "./panels.js";
import { TilePanel } from "./tilepanel.js";

/** Where this browser keeps a guest's streak and chosen theme. */
const STREAK_KEY = "taluva.puzzles.streak";
const THEME_KEY = "taluva.puzzles.theme";

function stored(key, fallback) {
  try {
    return localStorage.getItem(key) ?? fallback;
  } catch {
    return fallback;
  }
}

function store(key, value) {
  try {
    localStorage.setItem(key, String(value));
  } catch {
    // a browser that keeps nothing still solves puzzles: the streak lasts the page
  }
}

export class PuzzlesPage extends PositionPage {
  constructor(root, config) {
    super();
    this.root = root;
    this.config = config;
    this.puzzle = null;
    this.start = null; // the puzzle's position, to go back to when the tile is taken back
    this.state = null;
    this.tile = null; // the solver's tile placement, once made
    this.verdict = null; // the server's answer to the attempt
    this.player = null; // a signed-in player's puzzle rating, attempts and streak
    this.themes = [];
    this.theme = stored(THEME_KEY, "");
    this.busy = false;
    this.orientation = 0;
    this.cursor = null;
    this.locked = false;
    this.mode = null;
    this.seats = [];
    this.legal = new Set();
    this.socket = { send: (message) => { this.explainRemote(message.move); return 1; } };
    this.build();
    this.load();
  }

  destroy() {
    this.gone = true;
    this.input.destroy();
  }

  // ------------------------------------------------------------------ layout

  build() {
    const button = (label, title, action, extra = {}) =>
      h("button", { type: "button", title, "aria-label": title, onclick: action, ...extra }, label);
    this.tools = {
      rotateLeft: button("⟲", "Rotate the tile counter-clockwise (R, wheel)", () => this.rotate(1), { class: "rotate" }),
      rotateRight: button("⟳", "Rotate the tile clockwise (Shift+R)", () => this.rotate(-1), { class: "rotate" }),
      place: button("Place tile", "Place the tile here (Enter)", () => this.confirmTile(), { class: "primary", id: "place" }),
      cancel: button("Cancel", "Let the tile follow the pointer again (Escape)", () => this.unlock()),
    };
    this.toolbar = h("div", { class: "toolbar seated" },
      button("−", "Zoom out (-)", () => this.board.zoom(1.25)),
      button("+", "Zoom in (+)", () => this.board.zoom(0.8)),
      button("Fit", "Show the whole island (0)", () => this.board.fit()),
      h("span", { class: "tile-tools" }, this.tools.rotateLeft, this.tools.rotateRight, this.tools.place, this.tools.cancel));
    this.tooltip = h("div", { class: "tooltip", role: "status", "aria-live": "polite" });
    this.banner = h("section", { class: "result-banner", role: "status", "aria-live": "polite", "aria-label": "Result" });
    this.buildMenu = new BuildMenu(this);
    this.explanations = new Explanations(this);
    this.boardHost = h("div", { class: "board-host" });
    const boardWrap = h("section", { class: "board-wrap", "aria-label": "Board" },
      this.banner, this.toolbar, this.boardHost, this.tooltip, this.buildMenu.node);
    this.card = h("section", { class: "puzzle-card", "aria-label": "Puzzle" });
    this.status = h("p", { class: "puzzle-status", role: "status", "aria-live": "polite" });
    this.tilePanel = new TilePanel(this);
    this.playersBox = h("div", { class: "players" });
    this.moveInput = h("input", { id: "move-input", autocomplete: "off", placeholder: "or type the move, e.g. temple 1,0", "aria-label": "Move text" });
    this.moveForm = h("form", { class: "move-form", onsubmit: (e) => { e.preventDefault(); this.play(this.moveInput.value); } },
      this.moveInput, h("button", { type: "submit" }, "Play"));
    const side = h("aside", { class: "side", tabindex: "0", "aria-label": "The tile and the players" },
      this.tilePanel.node, this.moveForm, this.playersBox);
    clear(this.root, h("div", { class: "puzzle-page" }, this.card, boardWrap, side));
    this.input = new BoardInput(this);
    this.board = new Board(this.boardHost, this.config.style, {
      hover: (hex) => this.input.hover(hex),
      click: (hex, event) => this.input.click(hex, event),
      wheel: (event) => this.input.wheel(event),
      leave: () => this.input.leave(),
      turned: () => this.drawOverlays(),
    });
    this.renderCard();
  }

  /** The next puzzle (of the chosen theme), after ``after`` if given. */
  async load(after = null) {
    const query = new URLSearchParams();
    if (this.theme) query.set("theme", this.theme);
    if (after) query.set("after", after);
    let data;
    try {
      data = await api("GET", `/api/puzzles/next?${query}`);
    } catch (error) {
      if (error instanceof ApiError && error.code === "no-such-theme" && this.theme) {
        this.theme = "";
        store(THEME_KEY, "");
        return this.load(after);
      }
      clear(this.card, h("p", { class: "fatal" }, `The puzzle cannot be loaded: ${error.message}`));
      return;
    }
    if (this.gone) return;
    this.puzzle = data.puzzle;
    this.player = data.player;
    this.themes = data.themes;
    this.start = data.state;
    this.tile = null;
    this.verdict = null;
    this.seats = [data.puzzle.mover];
    this.cardShape = null;
    this.setState(data.state);
    this.board.fit();
  }

  get streak() {
    return this.player ? this.player.streak : Number(stored(STREAK_KEY, "0")) || 0;
  }

  // ------------------------------------------------------------------ what the board pages share

  myTurn() {
    const s = this.state;
    return !this.busy && !this.verdict && !!s && s.status === "live" && s.to_move === this.puzzle?.mover;
  }


  // ------------------------------------------------------------------ the puzzle

  setState(state) {
    const turnChanged = !this.state || this.state.ply !== state.ply || this.state.phase !== state.phase;
    this.state = state;
    this.legal = new Set(state.legal);
    this.legalIndex = null;
    if (turnChanged) {
      this.buildMenu.drop();
      this.locked = false;
      this.cursor = null;
    }
    this.mode = state.phase === "tile" && state.tile && state.to_move === this.puzzle.mover && state.status === "live"
      ? { kind: "tile", code: state.tile } : null;
    this.explanations.forget();
    this.board.setState(state, { animate: false });
    this.render();
  }

  /** A move of the solver: the tile brings the position after it; the build completes the
   * turn, which the server judges. */
  async play(text) {
    text = (text || "").trim();
    if (!text || !this.myTurn()) return;
    this.busy = true;
    this.render();
    const id = encodeURIComponent(this.puzzle.id);
    try {
      if (this.state.phase === "tile") {
        const reply = await api("GET", `/api/puzzles/${id}/state?tile=${encodeURIComponent(text)}`);
        if (this.gone) return;
        this.tile = reply.state.moves.at(-1);
        this.busy = false;
        this.setState(reply.state);
      } else if (!this.legal.has(text)) {
        this.busy = false;
        this.render();
        toast(`${text} is not a legal build here`, "error");
      } else {
        const reply = await api("POST", `/api/puzzles/${id}/attempt`, { tile: this.tile, build: text });
        if (this.gone) return;
        this.busy = false;
        this.answered(reply);
      }
      this.moveInput.value = "";
    } catch (error) {
      this.busy = false;
      this.render();
      toast(error instanceof ApiError ? error.message : String(error), "error");
    }
  }

  /** The verdict: the streak counted, the winning turn drawn on the board. */
  answered(reply) {
    this.verdict = reply;
    if (reply.rating) {
      this.player = { ...this.player, rating: reply.rating.after, streak: reply.rating.streak };
    } else {
      store(STREAK_KEY, reply.right ? this.streak + 1 : 0);
    }
    this.cardShape = null;
    this.setState(reply.answer_state);
  }

  /** Take back the tile placed, to place it elsewhere. */
  takeBack() {
    if (!this.myTurn() || !this.tile) return;
    this.tile = null;
    this.setState(this.start);
  }

  chooseTheme(theme) {
    this.theme = theme;
    store(THEME_KEY, theme);
    this.load(this.puzzle?.id);
  }

  async explainRemote(move) {
    if (!this.puzzle || !move) return;
    const query = new URLSearchParams({ move });
    if (this.tile && this.state.phase === "build") query.set("tile", this.tile);
    try {
      const reply = await api("GET", `/api/puzzles/${encodeURIComponent(this.puzzle.id)}/explain?${query}`);
      if (!this.gone) this.explanations.onMessage(reply);
    } catch {
      // a hover's explanation is a courtesy: the move itself is judged when it is played
    }
  }

  // ------------------------------------------------------------------ rendering

  render() {
    const s = this.state;
    if (!s) return;
    this.tilePanel.render(s);
    this.renderPlayers(s);
    showResult(this.banner, this.verdict ? null : s.result, (seat) => this.board.playerColour(seat));
    this.moveForm.hidden = !this.myTurn();
    this.toolbar.querySelector(".tile-tools").hidden = !(this.myTurn() && this.mode);
    this.tools.place.disabled = !(this.locked && this.legal.has(this.ghostMove()));
    this.tools.cancel.hidden = !this.locked;
    this.renderCard();
    this.drawOverlays();
    this.buildMenu.render();
  }

  renderPlayers(s) {
    const cards = s.players.map((p) => playerCard(s, p, {
      colour: this.board.playerColour(p.seat), yours: p.seat === this.puzzle.mover,
    }));
    clear(this.playersBox, ...cards);
    for (const swatch of this.playersBox.querySelectorAll(".swatch")) swatch.style.background = swatch.dataset.colour;
  }

  /** The card: the theme choice, the puzzle and its task, the verdict, rating and streak. */
  renderCard() {
    const puzzle = this.puzzle;
    if (!puzzle) {
      clear(this.card, h("p", {}, "Loading the puzzle…"));
      return;
    }
    const shape = `${puzzle.id}|${!!this.verdict}|${this.state?.phase}|${this.busy}`;
    if (shape !== this.cardShape) {
      this.cardShape = shape;
      this.card.dataset.puzzle = puzzle.id;
      this.card.dataset.phase = this.verdict ? "answered" : this.state?.phase || "";
      clear(this.card, ...this.cardParts(puzzle));
    }
  }

  cardParts(puzzle) {
    const select = h("select", { id: "puzzle-theme", "aria-label": "Theme", onchange: (e) => this.chooseTheme(e.target.value) },
      h("option", { value: "" }, "Every theme"),
      ...this.themes.map((t) => h("option", { value: t.id, title: t.words }, `${t.words} (${t.count})`)));
    select.value = this.theme;
    const rating = this.player
      ? h("span", { class: "puzzle-rating", id: "puzzle-rating" }, `Puzzle rating ${this.player.rating}`)
      : h("span", { class: "puzzle-rating guest" }, "Sign in for a puzzle rating");
    const top = h("div", { class: "puzzle-top" },
      rating, h("span", { class: "puzzle-streak", id: "puzzle-streak" }, `Streak ${this.streak}`),
      h("a", { href: "#/", class: "leave" }, "← Lobby"));
    const about = h("p", { class: "puzzle-about" },
      `${puzzle.difficulty_name[0].toUpperCase()}${puzzle.difficulty_name.slice(1)} · rated ${puzzle.rating} · `,
      puzzle.themes.map((id) => this.themes.find((t) => t.id === id)?.words || id).join("; "));
    const parts = [top, h("label", { class: "puzzle-theme" }, "Theme ", select), about];
    const verdict = this.verdict;
    if (!verdict) {
      parts.push(h("h2", {}, puzzle.task));
      parts.push(h("p", { class: "why" }, this.state?.phase === "build"
        ? `Tile placed: ${this.tile}. Now build.`
        : `Your tile is ${this.state?.tile}: place it, then build.`));
      if (this.state?.phase === "build") {
        parts.push(h("button", { type: "button", id: "take-back", disabled: this.busy, onclick: () => this.takeBack() }, "Take back the tile"));
      }
      return parts;
    }
    const change = verdict.rating ? ` (${verdict.rating.change >= 0 ? "+" : ""}${verdict.rating.change})` : "";
    parts.push(h("h2", { class: verdict.right ? "won" : "lost", id: "puzzle-verdict" }, verdict.right ? `Right!${change}` : `Not this time${change}`));
    parts.push(h("p", { class: "puzzle-message", id: "puzzle-message" }, verdict.message));
    parts.push(h("p", { class: "why" }, `The board shows the winning turn (${verdict.answer.tile}, then ${verdict.answer.build}), outlined as the last turn.`));
    parts.push(h("button", { type: "button", class: "primary big", id: "next-puzzle", onclick: () => this.load(puzzle.id) }, "Next puzzle"));
    return parts;
  }

  drawOverlays() {
    const s = this.state;
    if (!s) return;
    const marks = { turns: this.verdict ? lastTurns(s) : [] };
    if (this.myTurn() && this.mode) {
      marks.spots = this.tileSpots.get(`tile|${this.orientation}`) || [];
    } else if (this.myTurn() && s.phase === "build") {
      marks.targets = [...this.buildsByHex.keys()].map(parseKey);
      if (this.buildMenu.current) marks.selected = this.buildMenu.current.hex;
    }
    this.board.overlays.setMarks(marks);
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
}
