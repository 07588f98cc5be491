// Learn to play (#/learn): the guided first game of GET /api/tutorial on the game page's
// board. Each step says what to do and why, outlines its hexes and takes only the move it
// teaches: every attempt goes to the server, which answers in the engine's words (another
// legal move gets the step's one-line answer, an illegal one the engine's reason) and, for the
// taught move, sends the states after it and after each scripted reply, shown one by one.
// The board's tools are the game page's (build menu, tile panel, explanations, keys): this
// page offers them the same surface as a game page does.

import { api, ApiError } from "./api.js";
import { el } from "./board.js";
import { h, clear, toast } from "./dom.js";
import { t } from "./i18n.js";
import { firstLevel, playComputer, tutorialProgress } from "./firstgame.js";
import { parseKey, parseMove } from "./hex.js";
import { PositionPage } from "./positionpage.js";
import { lastTurns, movesInWords } from "./movewords.js";

/** How long (ms) each opponent's reply stays on the board before the next one. */
const REPLY_PAUSE = 900;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class TutorialPage extends PositionPage {
  constructor(root, config) {
    super();
    this.root = root;
    this.config = config;
    this.lesson = null;
    this.state = null;
    this.number = 0; // the step shown: its index, or the steps' count once the game is won
    this.started = false;
    this.busy = false; // an answer or the opponents' replies are on their way
    this.feedback = null; // {kind: "other"|"bad", text}
    this.build();
    this.load();
  }

  // ------------------------------------------------------------------ layout

  build() {
    this.card = h("section", { class: "lesson-card", "aria-label": t("Lesson") });
    this.cardBody = h("div", { class: "lesson-body" });
    // Persistent, so that screen readers hear each change once: the answer to a move (or
    // what to do next), and a new step's title.
    this.status = h("p", { class: "lesson-status", role: "status", "aria-live": "polite" });
    this.announcer = h("p", { class: "visually-hidden", "aria-live": "polite" });
    this.card.append(this.cardBody, this.announcer);
    this.layOut("tutorial", "hut 1,0");
    // The step's hexes: above the island and its marks, under the tile being placed.
    this.highlight = el("g", { class: "lesson-marks", "pointer-events": "none" });
    this.board.svg.insertBefore(this.highlight, this.board.ghostLayer);
    this.renderCard();
  }

  async load() {
    try {
      this.lesson = await api("GET", "/api/tutorial");
    } catch (error) {
      clear(this.card, h("p", { class: "fatal" }, t("The lesson cannot be loaded: {error}", { error: error.message })));
      return;
    }
    if (this.gone) return;
    this.seats = [this.lesson.learner];
    if (!(await this.resume())) this.setState(this.lesson.start);
  }

  /** Go on from the step this browser reached (a reload, a visit to the lobby): the position
   * there is the one after the previous step's move and replies. False when there is none. */
  async resume() {
    const reached = tutorialProgress.step();
    const before = this.lesson.steps[reached - 1];
    if (!before || reached >= this.lesson.steps.length) return false;
    try {
      const reply = await api("GET", `/api/tutorial/steps/${before.number}/answer?move=${encodeURIComponent(before.move)}`);
      if (reply.verdict !== "taught" || this.gone) return false;
      this.number = reached;
      this.started = true;
      this.setState(reply.states.at(-1));
      this.showStep();
      return true;
    } catch {
      return false;
    }
  }

  /** Back to the lesson's first words and its first position. */
  startOver() {
    tutorialProgress.reach(0);
    this.number = 0;
    this.started = false;
    this.feedback = null;
    this.setState(this.lesson.start);
  }

  get step() {
    return this.lesson?.steps[this.number] || null;
  }

  // ------------------------------------------------------------------ what the board pages share

  myTurn() {
    const s = this.state;
    return this.started && !this.busy && !!s && s.status === "live" && s.to_move === this.lesson.learner;
  }


  // ------------------------------------------------------------------ the lesson

  setState(state, { animate = false } = {}) {
    const turnChanged = !this.state || this.state.ply !== state.ply;
    this.state = state;
    this.legal = new Set(state.legal);
    this.legalIndex = null;
    if (turnChanged) {
      this.buildMenu.drop();
      this.locked = false;
      this.cursor = null;
    }
    this.mode = state.phase === "tile" && state.tile && state.to_move === this.lesson.learner && state.status === "live"
      ? { kind: "tile", code: state.tile } : null;
    if (animate) this.explanations.forget();
    this.board.setState(state, { animate });
    if (state.result) {
      this.number = this.lesson.steps.length;
      tutorialProgress.finish();
    }
    this.render();
  }

  start() {
    this.started = true;
    this.render();
    this.showStep();
  }

  /** A new step: its hexes come into view, and this browser keeps it to come back to. */
  showStep() {
    const step = this.step;
    if (!step) return;
    tutorialProgress.reach(step.number);
    // On a small screen the island is too small to point at: come close to the step's hexes.
    const hexes = step.highlight.map(parseKey);
    if (window.matchMedia("(max-width: 820px)").matches) this.board.focus(hexes);
    else this.board.reveal(hexes);
  }

  /** Show the step's move on the board: the tile held there, or its build chosen in the menu. */
  showMe() {
    const step = this.step;
    if (!step || !this.myTurn()) return;
    const m = parseMove(step.move);
    if (m.kind === "tile") {
      this.cursor = m.hex;
      this.orientation = m.k;
      this.locked = true;
      this.render();
      this.explanations.ghost();
    } else {
      this.buildMenu.suggest(m.kind === "expand" ? m.hexes[0] : m.hex, step.move);
    }
  }

  async play(text) {
    text = (text || "").trim();
    const step = this.step;
    if (!text || !step || !this.myTurn()) return;
    this.busy = true;
    this.feedback = null;
    this.render();
    let reply;
    try {
      reply = await api("GET", `/api/tutorial/steps/${step.number}/answer?move=${encodeURIComponent(text)}`);
    } catch (error) {
      this.busy = false;
      this.render();
      toast(error instanceof ApiError ? error.message : String(error), "error");
      return;
    }
    if (this.gone) return;
    if (reply.verdict !== "taught") {
      this.busy = false;
      this.locked = false;
      this.buildMenu.drop();
      const end = /[.!?]$/.test(reply.message) ? "" : ".";
      this.feedback = reply.verdict === "other"
        ? { kind: "other", text: reply.message + end }
        : { kind: "bad", text: t("Not allowed: {reason}", { reason: reply.message + end }) };
      this.render();
      return;
    }
    this.moveInput.value = "";
    if (reply.next !== null) tutorialProgress.reach(reply.next); // a reload now goes on from there
    for (const [index, state] of reply.states.entries()) {
      if (index > 0) await sleep(REPLY_PAUSE);
      if (this.gone) return;
      this.setState(state, { animate: true });
      const said = movesInWords(state).at(-1);
      if (said) this.announce(said.words);
    }
    this.number = reply.next ?? this.lesson.steps.length;
    this.busy = false;
    this.render();
    this.showStep();
  }

  async explainRemote(move) {
    const step = this.step;
    if (!step || !move) return;
    try {
      const reply = await api("GET", `/api/tutorial/steps/${step.number}/explain?move=${encodeURIComponent(move)}`);
      if (!this.gone && this.step === step) this.explanations.onMessage(reply);
    } catch {
      // a hover's explanation is a courtesy: the move itself is judged when it is played
    }
  }

  // ------------------------------------------------------------------ rendering

  /** Whether the learner has the taught move ready: the tile held on its spot, or its build
   * chosen in the menu. */
  ready() {
    const step = this.step;
    if (!step || !this.myTurn()) return false;
    if (this.mode) return this.ghostMove() === step.move;
    return this.buildMenu.current?.selected === step.move;
  }

  /** The lesson's card: the intro, the step (what the opponents did, what to do and why),
   * or the end; built again only when that changes, while the status line follows every
   * change of the move in the making. */
  renderCard() {
    const lesson = this.lesson;
    if (!lesson || !this.state) {
      clear(this.cardBody, h("p", {}, t("Loading the lesson…")));
      return;
    }
    const done = !!this.state.result;
    const shape = `${this.started}|${this.number}|${this.busy}|${done}`;
    if (shape !== this.cardShape) {
      this.cardShape = shape;
      clear(this.cardBody, ...this.cardParts(lesson, done));
      // The answer to a move shows right under the step's title, where the eye is.
      this.cardBody.querySelector("h2").after(this.status);
      if (this.started && !done && !this.busy) this.announcer.textContent = this.cardBody.querySelector("h2").textContent;
      if (done) this.announcer.textContent = this.state.result.headline;
    }
    const ready = this.ready();
    // Once the move in the making is the step's, saying so comes before the last refusal.
    const text = !this.started || done ? ""
      : this.busy ? t("Your opponents are playing…")
        : ready ? (this.mode ? t("That is the spot: click it again, press Enter or “Place tile”.") : t("That is the build: confirm it."))
          : this.feedback ? this.feedback.text
            : "";
    const kind = this.busy ? "" : ready ? "ok" : this.feedback ? this.feedback.kind : "";
    if (this.status.textContent !== text) this.status.textContent = text;
    this.status.className = `lesson-status ${kind}`.trim();
    this.status.hidden = !text;
    const showMe = this.cardBody.querySelector("#show-me");
    if (showMe) showMe.disabled = !this.myTurn();
  }

  cardParts(lesson, done) {
    const paragraphs = (texts, cls) => texts.map((text) => h("p", { class: cls }, text));
    const total = lesson.steps.length;
    const back = h("a", { href: "#/", class: "leave" }, t("← Lobby"));
    if (!this.started) {
      return [
        h("div", { class: "lesson-top" }, h("span", { class: "lesson-count" }, lesson.title), back),
        h("h2", {}, t("Your first game")),
        ...paragraphs(lesson.intro),
        h("button", { type: "button", class: "primary big", id: "start-lesson", onclick: () => this.start() }, t("Start the lesson")),
      ];
    }
    if (done) {
      return [
        h("div", { class: "lesson-top" }, h("span", { class: "lesson-count" }, t("Lesson complete")), back),
        h("h2", { class: "won" }, this.state.result.headline),
        ...paragraphs(lesson.ending),
        h("div", { class: "lesson-actions" },
          h("button", { type: "button", class: "primary big", id: "play-computer", onclick: () => playComputer(this.config) },
            t("Play the computer (level {level})", { level: firstLevel(this.config) })),
          h("a", { href: "#/", class: "button" }, t("Back to the lobby"))),
      ];
    }
    const step = this.step;
    const before = this.number > 0 ? lesson.steps[this.number - 1] : null;
    const then = before && before.then.length && !this.busy
      ? [h("p", { class: "lesson-then" }, h("strong", {}, t("Meanwhile:")), " ", before.then.join(" "))] : [];
    return [
      h("div", { class: "lesson-top" },
        h("span", { class: "lesson-count" }, t("Step {n} of {total}", { n: this.number + 1, total })),
        h("progress", { max: total, value: this.number, "aria-hidden": "true" }),
        this.number > 0 ? h("button", { type: "button", class: "start-over", disabled: this.busy, onclick: () => this.startOver() }, t("Start over")) : null,
        back),
      ...then,
      h("h2", { "data-step": step.id }, step.say),
      ...paragraphs(step.why, "why"),
      h("div", { class: "lesson-actions" },
        h("button", { type: "button", id: "show-me", onclick: () => this.showMe() }, t("Show me")),
        h("span", { class: "hint-line" }, t("The hexes outlined in yellow are where this step happens."))),
    ];
  }

  drawOverlays() {
    const s = this.state;
    if (!s) return;
    // Only the step's own spots and targets are marked: the lesson shows one place, not the
    // dozens a real turn offers (any other is still answered when tried).
    const marks = { turns: lastTurns(s) };
    const outlined = new Set(this.step?.highlight || []);
    if (this.myTurn() && this.mode) {
      marks.spots = (this.tileSpots.get(`tile|${this.orientation}`) || []).filter(([q, r]) => outlined.has(`${q},${r}`));
    } else if (this.myTurn() && s.phase === "build") {
      marks.targets = [...this.buildsByHex.keys()].filter((k) => outlined.has(k)).map(parseKey);
      if (this.buildMenu.current) marks.selected = this.buildMenu.current.hex;
    }
    this.board.overlays.setMarks(marks);
    this.drawPending();
    this.drawHighlight();
  }

  /** The step's hexes, outlined above the island (green once the move is ready there). */
  drawHighlight() {
    const layer = this.highlight;
    layer.replaceChildren();
    const step = this.step;
    if (!step || !this.myTurn()) return;
    const ready = this.ready();
    layer.setAttribute("class", ready ? "lesson-marks ready" : "lesson-marks");
    const hexes = step.highlight.map(parseKey);
    this.board.overlays.outline(layer, hexes, "rgba(0,0,0,0.8)", 9, null, "none", 1);
    this.board.overlays.outline(layer, hexes, ready ? "#00e676" : "#ffd600", 5, null, ready ? "rgba(0,230,118,0.2)" : "rgba(255,214,0,0.28)", 1);
  }
}
