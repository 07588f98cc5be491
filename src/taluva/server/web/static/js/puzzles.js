// Puzzles (#/puzzles): a position from a real game where one turn wins at once, on the game
// page's board. The solver places the tile (the server sends the position after it, with the
// legal builds), then builds; the server judges the turn with the engine and answers right or
// wrong, in words, with the winning turn drawn on the board. Signed-in players have a puzzle
// rating (and so do the puzzles) and a streak kept by the server; a guest's streak is kept in
// this browser. A theme may be chosen; the next puzzle is one near the player's rating.
// The board's tools are the game page's (build menu, tile panel, explanations, keys): this
// page offers them the same surface as a game page does.

import { api, ApiError } from "./api.js";
import { h, clear, toast } from "./dom.js";
import { t } from "./i18n.js";
import { parseKey } from "./hex.js";
import { PositionPage } from "./positionpage.js";
import { lastTurns } from "./movewords.js";

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
    this.build();
    this.load();
  }

  // ------------------------------------------------------------------ layout

  build() {
    this.card = h("section", { class: "puzzle-card", "aria-label": t("Puzzle") });
    this.status = h("p", { class: "puzzle-status", role: "status", "aria-live": "polite" });
    this.layOut("puzzle-page", "temple 1,0");
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
      clear(this.card, h("p", { class: "fatal" }, t("The puzzle cannot be loaded: {error}", { error: error.message })));
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
        toast(t("{move} is not a legal build here", { move: text }), "error");
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

  /** The banner shows no result once the puzzle is answered: the card tells the verdict. */
  shownResult(s) {
    return this.verdict ? null : s.result;
  }

  /** The card: the theme choice, the puzzle and its task, the verdict, rating and streak. */
  renderCard() {
    const puzzle = this.puzzle;
    if (!puzzle) {
      clear(this.card, h("p", {}, t("Loading the puzzle…")));
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
    const select = h("select", { id: "puzzle-theme", "aria-label": t("Theme"), onchange: (e) => this.chooseTheme(e.target.value) },
      h("option", { value: "" }, t("Every theme")),
      ...this.themes.filter((theme) => theme.count).map((theme) => h("option", { value: theme.id, title: theme.words }, `${theme.words} (${theme.count})`)));
    select.value = this.theme;
    const rating = this.player
      ? h("span", { class: "puzzle-rating", id: "puzzle-rating" }, t("Puzzle rating {rating}", { rating: String(this.player.rating) }))
      : h("span", { class: "puzzle-rating guest" }, t("Sign in for a puzzle rating"));
    const top = h("div", { class: "puzzle-top" },
      rating, h("span", { class: "puzzle-streak", id: "puzzle-streak" }, t("Streak {n}", { n: this.streak })),
      h("a", { href: "#/", class: "leave" }, t("← Lobby")));
    const about = h("p", { class: "puzzle-about" },
      t("{difficulty} · rated {rating}", { difficulty: `${puzzle.difficulty_name[0].toUpperCase()}${puzzle.difficulty_name.slice(1)}`, rating: String(puzzle.rating) }), " · ",
      puzzle.themes.map((id) => this.themes.find((theme) => theme.id === id)?.words || id).join("; "));
    const parts = [top, h("label", { class: "puzzle-theme" }, t("Theme"), " ", select), about];
    const verdict = this.verdict;
    if (!verdict) {
      parts.push(h("h2", {}, puzzle.task));
      parts.push(h("p", { class: "why" }, this.state?.phase === "build"
        ? t("Tile placed: {move}. Now build.", { move: this.tile })
        : t("Your tile is {tile}: place it, then build.", { tile: this.state?.tile })));
      if (this.state?.phase === "build") {
        parts.push(h("button", { type: "button", id: "take-back", disabled: this.busy, onclick: () => this.takeBack() }, t("Take back the tile")));
      }
      return parts;
    }
    const change = verdict.rating ? ` (${verdict.rating.change >= 0 ? "+" : ""}${verdict.rating.change})` : "";
    parts.push(h("h2", { class: verdict.right ? "won" : "lost", id: "puzzle-verdict" }, (verdict.right ? t("Right!") : t("Not this time")) + change));
    parts.push(h("p", { class: "puzzle-message", id: "puzzle-message" }, verdict.message));
    parts.push(h("p", { class: "why" }, t("The board shows the winning turn ({tile}, then {build}), outlined as the last turn.", { tile: verdict.answer.tile, build: verdict.answer.build })));
    parts.push(h("button", { type: "button", class: "primary big", id: "next-puzzle", onclick: () => this.load(puzzle.id) }, t("Next puzzle")));
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
    this.drawPending();
  }
}
