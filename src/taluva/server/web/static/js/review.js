// The review of a finished game: a "Review" button beside the replay, the review's progress
// while the server's AI workers compute it, then a graph of each player's winning chance over
// the moves (a point shows the replay there) and each player's mistakes and blunders in
// words; choosing one shows the position before it with the better move drawn on the board,
// the view framing the move played and the better one until the replay leaves it.

import { api } from "./api.js";
import { h, clear } from "./dom.js";
import { t, tn } from "./i18n.js";
import { movesInWords } from "./movewords.js";
import { doubleFootprint, moveHexes, parseMove, tileFootprint, tileTerrains } from "./hex.js";
import { SIZE } from "./board.js";
import { percent } from "./winchance.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const WIDTH = 320;
const HEIGHT = 150;
const PAD = { left: 34, right: 8, top: 8, bottom: 20 };
/** Each seat's marker and line dash, so that the curves differ by more than their colour. */
const SHAPES = [
  { name: t("circles"), dash: null },
  { name: t("squares"), dash: "6 3" },
  { name: t("triangles"), dash: "2 3" },
  { name: t("diamonds"), dash: "9 3 2 3" },
  { name: t("crosses"), dash: "1 5" },
];
const MARKS = { mistake: "?", blunder: "??" };
/** The margin around a chosen mistake's hexes, and the least the view then shows (so that
 * a single hut still has its neighbours around it), in hex radii. */
const FRAME = { margin: 1.5, width: 12, height: 7 };
/** How far a review has gone: an answer that arrives after a later one is dropped. */
const STAGE = { queued: 0, running: 1, done: 2, failed: 2 };


function svg(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) node.setAttribute(name, String(value));
  }
  if (parent) parent.appendChild(node);
  return node;
}

/** A marker of `shape` (an index of SHAPES) centred at x, y. */
function marker(parent, shape, x, y, colour, size = 3) {
  const s = size;
  const attrs = { fill: colour, stroke: "#0f2233", "stroke-width": 0.8, class: "review-marker" };
  switch (shape % SHAPES.length) {
    case 0: return svg("circle", { cx: x, cy: y, r: s, ...attrs }, parent);
    case 1: return svg("rect", { x: x - s, y: y - s, width: 2 * s, height: 2 * s, ...attrs }, parent);
    case 2: return svg("polygon", { points: `${x},${y - s * 1.2} ${x + s * 1.1},${y + s} ${x - s * 1.1},${y + s}`, ...attrs }, parent);
    case 3: return svg("polygon", { points: `${x},${y - s * 1.3} ${x + s * 1.3},${y} ${x},${y + s * 1.3} ${x - s * 1.3},${y}`, ...attrs }, parent);
    default: return svg("path", { d: `M${x - s},${y - s} L${x + s},${y + s} M${x + s},${y - s} L${x - s},${y + s}`, stroke: colour, "stroke-width": 1.8, fill: "none", class: "review-marker" }, parent);
  }
}

export class ReviewPanel {
  /** `page` is the GamePage: its state, board, replay (showReplay) and the mover's preview. */
  constructor(page) {
    this.page = page;
    this.job = null; // the server's answer: {status, done, total, review?, error?}
    this.open = false;
    this.selected = null; // the move review whose better plan is drawn
    this.framed = null; // the move review whose hexes the view frames
    this.viewBefore = null; // the camera from before, given back when the mistake is left
    this.button = h("button", {
      type: "button", id: "review-toggle", hidden: true, "aria-expanded": "false",
      title: t("The AI's review of this game: each player's winning chance, mistakes and blunders"),
      onclick: () => this.toggle(),
    }, t("Review"));
    this.progress = h("progress", { class: "review-progress", max: 1, value: 0, "aria-label": t("Review progress") });
    this.status = h("p", { class: "review-status", role: "status", "aria-live": "polite" });
    this.body = h("div", { class: "review-body" });
    this.node = h("section", { class: "review", hidden: true, "aria-label": t("Game review") },
      h("h3", {}, t("Review")), this.progress, this.status, this.body);
  }

  /** Show the button once the game is over; mark the replay's position on the graph. */
  update(state) {
    this.button.hidden = !(state.status === "finished" && state.ply > 0);
    this.button.textContent = this.open ? t("Hide review") : t("Review");
    this.button.setAttribute("aria-expanded", this.open ? "true" : "false");
    this.node.hidden = !this.open;
    const ply = this.page.replay ? this.page.replay.ply : null;
    for (const point of this.node.querySelectorAll(".review-point")) {
      point.classList.toggle("current", Number(point.dataset.ply) === ply);
    }
    for (const item of this.node.querySelectorAll(".review-move")) {
      item.setAttribute("aria-pressed", this.selected && Number(item.dataset.ply) === this.selected.ply ? "true" : "false");
    }
  }

  async toggle() {
    this.open = !this.open;
    this.page.render();
    if (this.open && (!this.job || this.job.status === "failed")) await this.ask();
  }

  /** Ask the server for the review: it starts, joins the one running, or answers at once. */
  async ask() {
    this.job = null;
    clear(this.body);
    this.show({ status: "queued", done: 0, total: 0 });
    try {
      this.show(await api("POST", `/api/games/${encodeURIComponent(this.page.id)}/review`));
    } catch (error) {
      this.show({ status: "failed", done: 0, total: 0, error: t("the review cannot start: {reason}", { reason: error.message }) });
    }
  }

  /** A `review` message of the game's socket: progress, or the finished review. */
  onMessage(message) {
    if (message.game !== this.page.id || !this.job) return;
    this.show(message);
  }

  /** After the socket reconnects: read how the review stands, since its messages went by. */
  async resync() {
    if (!this.job || this.job.status === "done" || this.job.status === "failed") return;
    try {
      this.show(await api("GET", `/api/games/${encodeURIComponent(this.page.id)}/review`));
    } catch {
      // the next review message brings it up to date
    }
  }

  /** Whether `job` is newer than what is shown (answers and messages may cross). */
  newer(job) {
    const old = this.job;
    if (!old || old.status === "failed") return true;
    if (old.status === "done") return false;
    const stage = STAGE[job.status] ?? -1;
    return stage > STAGE[old.status] || (stage === STAGE[old.status] && job.done >= old.done);
  }

  show(job) {
    if (!this.newer(job)) return;
    const before = this.job?.status;
    this.job = job;
    const done = job.status === "done";
    this.progress.hidden = done || job.status === "failed";
    this.progress.max = Math.max(1, job.total);
    this.progress.value = job.done;
    if (job.status === "failed") {
      const why = job.error || t("the review failed");
      this.status.textContent = `${why[0].toUpperCase()}${why.slice(1)}.`;
      clear(this.body, h("button", { type: "button", class: "review-retry", onclick: () => this.ask() }, t("Try again")));
      return;
    }
    if (!done) {
      this.status.textContent = job.status === "queued"
        ? t("The review waits for a free AI worker…")
        : tn("Reviewing: {done} of {n} position searched.", "Reviewing: {done} of {n} positions searched.", job.total, { done: job.done });
      return;
    }
    if (before !== "done") this.render(job.review);
  }

  // ------------------------------------------------------------------ the finished review

  render(review) {
    const state = this.page.state;
    const counts = review.players.map((name, seat) => {
      const marked = review.moves.filter((m) => m.player === seat && m.mark);
      const blunders = marked.filter((m) => m.mark === "blunder").length;
      // Said first, then put in the sentence (the catalog's extraction skips nested calls).
      const blunderWords = tn("{n} blunder", "{n} blunders", blunders);
      const mistakeWords = tn("{n} mistake", "{n} mistakes", marked.length - blunders);
      return t("{name} {blunders}, {mistakes}", { name, blunders: blunderWords, mistakes: mistakeWords });
    });
    this.status.textContent = t("Review ready: {players}.", { players: counts.join("; ") });
    const said = movesInWords(state);
    clear(this.body,
      this.legend(review),
      this.graph(review, said),
      h("p", { class: "review-help" }, t("Choose a point to see the position after that move (arrow keys move along the graph). Choose a mistake to see the position before it with the better move drawn on the board in orange.")),
      ...review.players.map((name, seat) => this.mistakes(review, seat, said)),
      this.detail = h("p", { class: "review-detail", role: "status", "aria-live": "polite" }));
    this.page.render();
  }

  legend(review) {
    return h("ul", { class: "review-legend", "aria-label": t("Players in the graph") },
      ...review.players.map((name, seat) => {
        const key = svg("svg", { viewBox: "0 0 28 10", width: 28, height: 10, "aria-hidden": "true" });
        const colour = this.page.board.playerColour(seat);
        svg("line", { x1: 1, y1: 5, x2: 27, y2: 5, stroke: colour, "stroke-width": 2, "stroke-dasharray": SHAPES[seat % SHAPES.length].dash }, key);
        marker(key, seat, 14, 5, colour);
        return h("li", {}, key, " ", t("{name} ({shape})", { name, shape: SHAPES[seat % SHAPES.length].name }));
      }));
  }

  /** Each player's winning chance after every move, one focusable point per position. */
  graph(review, said) {
    const positions = review.chances.length;
    const span = Math.max(1, positions - 1);
    const x = (i) => PAD.left + (i * (WIDTH - PAD.left - PAD.right)) / span;
    const y = (v) => PAD.top + (1 - v) * (HEIGHT - PAD.top - PAD.bottom);
    const chart = svg("svg", {
      class: "review-graph", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "group",
      "aria-label": tn("Winning chance over the game, {n} position", "Winning chance over the game, {n} positions", positions),
    });
    for (const v of [0, 0.5, 1]) {
      svg("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(v), y2: y(v), class: "review-grid" }, chart);
      svg("text", { x: PAD.left - 4, y: y(v) + 3.5, "text-anchor": "end", class: "review-axis" }, chart).textContent = percent(v);
    }
    svg("text", { x: PAD.left, y: HEIGHT - 5, class: "review-axis" }, chart).textContent = t("start");
    svg("text", { x: WIDTH - PAD.right, y: HEIGHT - 5, "text-anchor": "end", class: "review-axis" }, chart).textContent = t("move {n}", { n: positions - 1 });
    const byPly = new Map(review.moves.map((m) => [m.ply, m]));
    review.players.forEach((name, seat) => {
      const colour = this.page.board.playerColour(seat);
      const line = review.chances.map((row, i) => `${x(i).toFixed(1)},${y(row[seat]).toFixed(1)}`).join(" ");
      svg("polyline", { points: line, fill: "none", stroke: colour, "stroke-width": 1.6, "stroke-dasharray": SHAPES[seat % SHAPES.length].dash }, chart);
    });
    const points = [];
    review.chances.forEach((row, i) => {
      const move = byPly.get(i - 1);
      const words = i === 0 ? t("Start") : t("After move {n}: {move}", { n: i, move: said[i - 1]?.words ?? move?.move ?? "" });
      const chances = review.players.map((name, seat) => t("{name} {chance}", { name, chance: percent(row[seat]) })).join(", ");
      const point = svg("g", {
        class: "review-point", tabindex: i === 0 ? 0 : -1, role: "button", "data-ply": i,
        "aria-label": this.pointLabel(words, chances, move, review.players),
      }, chart);
      const step = (WIDTH - PAD.left - PAD.right) / span;
      svg("rect", { x: x(i) - step / 2, y: PAD.top, width: step, height: HEIGHT - PAD.top - PAD.bottom, class: "review-hit" }, point);
      review.players.forEach((name, seat) => marker(point, seat, x(i), y(row[seat]), this.page.board.playerColour(seat), 2.4));
      if (move?.mark) {
        const sign = svg("text", { x: x(i), y: y(row[move.player]) - 6, "text-anchor": "middle", class: `review-mark ${move.mark}` }, point);
        sign.textContent = MARKS[move.mark];
      }
      point.addEventListener("click", () => this.page.showReplay(i));
      point.addEventListener("keydown", (event) => this.onPointKey(event, i, points));
      points.push(point);
    });
    return chart;
  }

  /** A point of the graph in words: the move, the chances, and the mistake it was, if any. */
  pointLabel(words, chances, move, players) {
    const name = move ? players[move.player] : null;
    if (move?.mark === "mistake") return t("{move}. {chances}, {name}'s mistake", { move: words, chances, name });
    if (move?.mark === "blunder") return t("{move}. {chances}, {name}'s blunder", { move: words, chances, name });
    return t("{move}. {chances}", { move: words, chances });
  }

  onPointKey(event, i, points) {
    const moves = { ArrowLeft: i - 1, ArrowRight: i + 1, ArrowDown: i - 1, ArrowUp: i + 1, Home: 0, End: points.length - 1 };
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      this.page.showReplay(i);
      return;
    }
    if (!(event.key in moves)) return;
    event.preventDefault();
    const next = Math.max(0, Math.min(points.length - 1, moves[event.key]));
    points[i].setAttribute("tabindex", -1);
    points[next].setAttribute("tabindex", 0);
    points[next].focus();
  }

  /** One player's mistakes and blunders, each a button that shows it with the better move. */
  mistakes(review, seat, said) {
    const name = review.players[seat];
    const marked = review.moves.filter((m) => m.player === seat && m.mark);
    const items = marked.map((m) => {
      const played = said[m.ply]?.words ?? m.move;
      const better = this.planInWords(m);
      return h("li", {}, h("button", {
        type: "button", class: `review-move ${m.mark}`, "data-ply": m.ply, "aria-pressed": "false",
        onclick: () => this.choose(m, played, better),
      },
      h("span", { class: "review-move-head" }, this.markHead(m)),
      h("span", {}, played, " ", h("code", { class: "notation" }, m.move)),
      h("span", { class: "review-better" }, t("Better: {plan}", { plan: better }), " ", h("code", { class: "notation" }, (m.best || []).join(" + ")))));
    });
    return h("section", { class: "review-player", "aria-label": t("{name}'s mistakes and blunders", { name }) },
      h("h4", {}, marked.length ? t("{name}: {n} to look at", { name, n: marked.length }) : t("{name}: no mistakes found", { name })),
      marked.length ? h("ol", { class: "review-moves" }, ...items) : null);
  }

  /** "Move 42 · blunder ?? (−31%)": a marked move's number, mark and the chance it lost. */
  markHead(m) {
    const values = { n: m.ply + 1, loss: percent(m.loss) };
    return m.mark === "blunder" ? t("Move {n} · blunder ?? (−{loss})", values) : t("Move {n} · mistake ? (−{loss})", values);
  }

  /** The preferred plan in the words of the move log ("Ana expanded into rock: 3 huts…"),
   * from what the server says each of its moves would do (`best_effects`). */
  planInWords(m) {
    const best = m.best || [];
    const what = {
      players: this.page.state.players,
      moves: best,
      movers: best.map(() => m.player),
      effects: m.best_effects || [],
    };
    const said = movesInWords(what).map((entry) => entry.words);
    if (!said.length) return best.join(" + ");
    return said.reduce((plan, next) => t("{plan}, then {next}", { plan, next }));
  }

  async choose(m, played, better) {
    this.selected = m;
    const values = { n: m.ply + 1, played, before: percent(m.before), after: percent(m.after), better };
    this.detail.textContent = m.mark === "blunder"
      ? t("Move {n}: {played} – a blunder, winning chance {before} before, {after} after. Better: {better}.", values)
      : t("Move {n}: {played} – a mistake, winning chance {before} before, {after} after. Better: {better}.", values);
    await this.page.showReplay(m.ply);
  }

  // ------------------------------------------------------------------ the better move on the board

  /** Draw the chosen mistake's better move on the board while the replay shows its position
   * (called by the page after it draws its own overlays). */
  drawSuggestion(state) {
    const board = this.page.board;
    const replay = this.page.replay;
    const m = this.selected;
    const showing = !!m && !!replay && replay.ply === m.ply;
    board.ghostLayer.classList.toggle("suggested", showing);
    this.frame(showing ? m : null);
    if (!showing) return;
    const text = (m.best || []).find((move) => move !== "draw");
    if (!text) return;
    const move = parseMove(text);
    if (move.kind === "tile" || move.kind === "double") {
      const double = move.kind === "double";
      const code = double ? move.code : state.tile;
      if (!code) return;
      const hexes = double ? doubleFootprint(move.hex[0], move.hex[1], move.k) : tileFootprint(move.hex[0], move.hex[1], move.k);
      const terrains = tileTerrains(code, double);
      board.overlays.setGhost({ hexes: hexes.map(([q, r], i) => [q, r, terrains[i]]), legal: true });
    } else {
      board.overlays.setPreview(this.page.previewOf(text, m.player));
    }
  }

  /** Frame move review `m`'s hexes (the move played and the better plan) while its position
   * is shown: the whole game's view leaves an early mistake small and off to a side. With
   * null, give back the view from before (the whole island if the view was turned since). */
  frame(m) {
    if (m === this.framed) return;
    const board = this.page.board;
    const camera = board.camera;
    this.framed = m;
    if (m) {
      const hexes = [m.move, ...(m.best || [])].filter((text) => text && text !== "draw").flatMap((text) => moveHexes(text));
      if (!hexes.length) return;
      this.viewBefore ??= { cx: camera.cx, cy: camera.cy, scale: camera.scale, turn: board.projection.turn };
      const box = board.boxOf(hexes);
      const w = Math.max(box.w + 2 * FRAME.margin * SIZE, FRAME.width * SIZE);
      const h = Math.max(box.h + 2 * FRAME.margin * SIZE, FRAME.height * SIZE);
      camera.frame({ x: box.x + box.w / 2 - w / 2, y: box.y + box.h / 2 - h / 2, w, h }, { animate: true });
    } else if (this.viewBefore) {
      const view = this.viewBefore;
      this.viewBefore = null;
      if (view.turn === board.projection.turn) camera.moveTo(view.cx, view.cy, view.scale, true);
      else board.fit();
    }
  }
}
