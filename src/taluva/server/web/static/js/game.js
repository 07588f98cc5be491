// The game page: the board with its tile ghost, the side panels, hints and the moves typed
// as text; it owns the position and the tile being placed, and hands the rest to its parts
// (build menu, replay, tile panel, explanations, board input, and the panels below).
// The server is the authority: this page only offers the moves the server lists as legal,
// and shows the position the server sends.

import { GameSocket } from "./api.js";
import { Board } from "./board.js";
import { tileToolSpan, tileTools, toolButton, zoomButtons } from "./boardtools.js";
import { ClockPanel } from "./clock.js";
import { LeaveControls, leftInWords } from "./resign.js";
import { ChatPanel } from "./chat.js";
import { h, clear, toast } from "./dom.js";
import { t } from "./i18n.js";
import { playerCard, showResult, statusInWords } from "./panels.js";
import { RematchPanel } from "./rematch.js";
import { TurnSignals } from "./signals.js";
import { lastTurns, movesInWords } from "./movewords.js";
import { WinChancePanel, percent } from "./winchance.js";
import { MoveLog } from "./movelog.js";
import { ReviewPanel } from "./review.js";
import { BuildMenu } from "./buildmenu.js";
import { Replayer } from "./replayer.js";
import { TilePanel } from "./tilepanel.js";
import { Explanations } from "./explain.js";
import { BoardInput } from "./boardinput.js";
import { JoinPanel } from "./join.js";
import { indexLegal, previewOf } from "./legal.js";
import { canonicalDouble, doubleFootprint, parseKey, parseMove, tileFootprint, tileTerrains } from "./hex.js";
import { RatingChanges, kindTag } from "./ratings.js";
import { rulesFor } from "./rules.js";

export class GamePage {
  constructor(root, gameId, config) {
    this.root = root;
    this.id = gameId;
    this.config = config;
    this.state = null;
    this.seats = [];
    this.orientation = 0;
    this.cursor = null;
    this.locked = false;
    this.mode = null; // {kind: "tile"|"double", code}
    this.build();
    this.socket = new GameSocket(gameId, {
      message: (m) => this.onMessage(m),
      status: (s) => this.onStatus(s),
    });
  }

  destroy() {
    this.socket.close();
    this.replayer.destroy();
    this.input.destroy();
    this.signals.destroy();
    this.clocks.destroy();
  }

  // ------------------------------------------------------------------ layout

  build() {
    this.tools = tileTools(this);
    this.boardWrap = h("section", { class: "board-wrap", "aria-label": t("Board") });
    this.toolbar = h("div", { class: "toolbar" },
      ...zoomButtons(this),
      toolButton("↶", t("Turn the view left ([)"), () => this.board.turn(-1), { class: "turn-view" }),
      toolButton("↷", t("Turn the view right (])"), () => this.board.turn(1), { class: "turn-view" }),
      tileToolSpan(this.tools),
    );
    this.tooltip = h("div", { class: "tooltip", role: "status", "aria-live": "polite" });
    this.buildMenu = new BuildMenu(this);
    this.explanations = new Explanations(this);
    this.boardHost = h("div", { class: "board-host" });
    this.help = h("p", { class: "help" },
      t("Drag to pan, pinch or Ctrl+wheel to zoom. Tile: the wheel or R rotates, click or Enter places."), " ",
      t("Keyboard: arrows move the cursor, Enter acts, Escape cancels."));
    // The winner banner: a live region, present (empty) from the start so that the end is announced.
    this.banner = h("section", { class: "result-banner", role: "status", "aria-live": "polite", "aria-label": t("Result") });
    this.boardWrap.append(this.banner, this.toolbar, this.boardHost, this.tooltip, this.buildMenu.node, this.help);
    this.title = h("h2", { class: "game-title" });
    this.kind = h("span", { class: "game-kind-slot" });
    this.ratingChanges = new RatingChanges(this.id);
    this.statusLine = h("p", { class: "status-line", role: "status", "aria-live": "polite" });
    this.connection = h("span", { class: "connection" });
    this.tilePanel = new TilePanel(this);
    this.joinPanel = new JoinPanel(this.id, (seatTokens) => this.socket.send({ type: "hello", tokens: seatTokens }));
    this.playersBox = h("div", { class: "players" });
    this.hintButton = h("button", { type: "button", class: "hint", onclick: () => this.askHint() }, t("Hint"));
    this.hintText = h("span", { class: "hint-text" });
    this.replayButton = h("button", { type: "button", id: "replay-toggle", onclick: () => this.replayer.toggle() }, t("Replay"));
    this.download = h("a", { class: "button", href: `/api/games/${encodeURIComponent(this.id)}/record`, download: `taluva-${this.id}.json` }, t("Download record"));
    // How to play, this game's rules (its expansions' sections only), in a new tab.
    this.rulesLink = h("a", { class: "button rules-button", href: "#/rules", target: "_blank", rel: "noopener", title: t("How to play: the rules of this game (opens in a new tab)") }, t("How to play"));
    this.replayer = new Replayer(this);
    this.moveInput = h("input", { id: "move-input", list: "legal-moves", autocomplete: "off", placeholder: t("type a move, e.g. {example}", { example: "hut 1,0" }), "aria-label": t("Move text") });
    this.legalList = h("datalist", { id: "legal-moves" });
    this.moveForm = h("form", { class: "move-form", onsubmit: (e) => { e.preventDefault(); this.play(this.moveInput.value); } },
      this.moveInput, this.legalList, h("button", { type: "submit" }, t("Play")));
    this.log = h("ol", { class: "log", "aria-label": t("Moves"), "data-empty": t("No moves yet.") });
    const side = h("aside", { class: "side" },
      h("div", { class: "head" }, this.title, this.kind, this.connection),
      this.statusLine, this.joinPanel.node, this.tilePanel.node, this.playersBox,
      h("div", { class: "actions" }, this.hintButton, this.replayButton, this.download, this.rulesLink), this.hintText,
      this.replayer.node, this.moveForm,
      h("h3", {}, t("Moves")), this.log);
    clear(this.root, h("div", { class: "game" }, this.boardWrap, side));
    // Chat, your-turn signals and rematch (js/chat.js, signals.js, rematch.js).
    this.signals = new TurnSignals();
    this.rematch = new RematchPanel(this.id);
    this.chat = new ChatPanel((message) => this.socket.send(message), this.config.limits);
    this.statusLine.after(this.rematch.node);
    // Clocks, and resigning or cancelling (js/clock.js, resign.js).
    this.clocks = new ClockPanel();
    this.leave = new LeaveControls(this.id, (message) => this.socket.send(message), this.config.abort_turns);
    this.playersBox.before(this.clocks.node);
    side.querySelector(".actions").after(this.leave.node);
    // The optional win-chance bar (js/winchance.js).
    this.winChance = new WinChancePanel((message) => this.socket.send(message), (seat) => this.board.playerColour(seat));
    this.hintText.after(this.winChance.node);
    side.append(this.signals.node, this.chat.node);
    // The game's review once it is over (js/review.js).
    this.review = new ReviewPanel(this);
    this.replayButton.after(this.review.button);
    this.replayer.node.after(this.review.node);
    this.input = new BoardInput(this);
    this.board = new Board(this.boardHost, this.config.style, {
      hover: (hex) => this.input.hover(hex),
      click: (hex, event) => this.input.click(hex, event),
      wheel: (event) => this.input.wheel(event),
      leave: () => this.input.leave(),
    });
  }

  // ------------------------------------------------------------------ messages

  onStatus(status) {
    this.link = status;
    this.connection.className = `connection ${status}`;
    this.showConnection();
    if (status === "missing") this.statusLine.textContent = t("There is no such game.");
  }

  /** Beside the title: a live game says so while its updates arrive; a finished game, an
   * open one or a replay says what it is instead. */
  showConnection() {
    const words = { reconnecting: t("○ reconnecting…"), missing: t("no such game") };
    let text = words[this.link] || this.link || "";
    if (this.link === "connected") {
      const status = this.state?.status;
      const statuses = {
        live: t("● live"), open: t("● waiting for players"), finished: t("● finished"),
        cancelled: t("● cancelled"), aborted: t("● aborted"),
      };
      if (this.replay) text = t("● replay");
      else if (!status) text = t("● connected");
      else text = statuses[status] ?? `● ${status}`;
    }
    this.connection.textContent = text;
  }

  onMessage(message) {
    switch (message.type) {
      case "welcome":
        this.seats = message.seats;
        if (message.unknown_tokens) toast(t("A saved seat token was not accepted."), "error");
        this.chat.reset(message.chat || []);
        this.rematch.offer(message.rematch || null);
        this.setState(message.state);
        this.replayer.openLinked();
        this.review.resync();
        break;
      case "move":
        this.setState(message.state, message);
        break;
      case "state":
        this.setState(message.state);
        break;
      case "out":
        toast(leftInWords(message.state.players[message.seat].name, message.reason, message.claimed));
        this.setState(message.state);
        break;
      case "presence":
        // Who is away now (js/resign.js counts down to a claim against the player to move).
        if (!this.state) break;
        this.state = { ...this.state, players: this.state.players.map((p) => ({ ...p, ...message.players[p.seat] })) };
        this.leave.update(this.state, this.seats);
        break;
      case "explain":
        this.explanations.onMessage(message);
        break;
      case "hint":
        this.showHint(message);
        break;
      case "chances":
        this.winChance.onMessage(message);
        break;
      case "chat":
      case "accepted":
        this.chat.onMessage(message);
        break;
      case "rematch":
        this.rematch.offer(message.game);
        break;
      case "review":
        this.review.onMessage(message);
        break;
      case "error":
        if (this.winChance.onError(message)) break;
        this.hintButton.disabled = false;
        toast(message.message, "error");
        this.chat.onError(message);
        this.explanations.onError(message);
        break;
      default:
        break;
    }
  }

  setState(state, moveMessage = null) {
    const turnChanged = !this.state || this.state.ply !== state.ply;
    this.state = state;
    this.legal = new Set(state.legal);
    this.legalIndex = null;
    if (turnChanged) {
      this.buildMenu.drop();
      this.locked = false;
      this.hintText.textContent = "";
      this.mode = null;
    }
    if (this.myTurn() && state.phase === "tile") {
      if (this.legal.has("draw") || [...this.legal].some((m) => m.startsWith("double "))) {
        // The player first chooses: draw, or take a face-up double-hex tile (sets this.mode).
      } else if (state.tile) {
        this.mode = { kind: "tile", code: state.tile };
      }
    } else {
      this.mode = null;
    }
    if (moveMessage) this.explanations.forget();
    if (!this.replay) this.board.setState(state, { animate: !!moveMessage });
    this.render();
    if (moveMessage) {
      const said = movesInWords(state).at(-1);
      this.announce(said && said.move === moveMessage.move ? said.words : moveMessage.move);
    }
  }

  /** The legal tile spots, "code|k" -> [[q, r]], indexed at first use: a player who is
   * not to move, or who has not touched the board yet, never needs them. */
  get tileSpots() {
    return this.indexed().tileSpots;
  }

  /** The legal builds by hex, "q,r" -> [move text], indexed at first use. */
  get buildsByHex() {
    return this.indexed().buildsByHex;
  }

  indexed() {
    this.legalIndex ??= indexLegal(this.state?.legal, this.state?.lagoons);
    return this.legalIndex;
  }

  /** The replay's position shown, or null in the live game. */
  get replay() {
    return this.replayer.current;
  }

  /** Show the position after `ply` moves (the move log, the review). */
  showReplay(ply) {
    return this.replayer.show(ply);
  }

  myTurn() {
    const s = this.state;
    return !!s && !this.replay && s.status === "live" && this.seats.includes(s.to_move);
  }

  announce(text) {
    this.tooltip.className = "tooltip";
    this.tooltip.textContent = text;
  }

  // ------------------------------------------------------------------ rendering

  render() {
    const s = this.replay ? this.replay.state : this.state;
    if (!s) return;
    this.title.textContent = this.state.name;
    if (this.kind.dataset.rated !== String(this.state.rated)) {
      this.kind.dataset.rated = String(this.state.rated);
      clear(this.kind, kindTag(this.state.rated));
    }
    this.showConnection();
    const yourMove = this.state.status === "live" && this.seats.includes(this.state.to_move);
    this.signals.update(`${this.state.name} – Taluva`, yourMove);
    this.rematch.update(this.state, this.seats);
    this.chat.update(this.state.players, this.seats);
    this.clocks.update(this.state);
    this.leave.update(this.state, this.seats);
    this.winChance.update(this.state);
    this.statusLine.textContent = statusInWords(this.state, {
      seats: this.seats, replay: this.replay, yourTurn: this.myTurn(), mode: this.mode,
    });
    this.joinPanel.update(this.state);
    this.tilePanel.render(s);
    this.renderPlayers(s);
    this.renderResult(s);
    this.renderLog();
    this.renderActions();
    this.replayer.render();
    this.review.update(this.state);
    // The typed moves' suggestions, built again only when the list changes (up to 400 options).
    const suggested = this.myTurn() ? this.state.legal : null;
    if (suggested !== this.suggested) {
      this.suggested = suggested;
      clear(this.legalList, ...(suggested || []).slice(0, 400).map((m) => h("option", { value: m })));
    }
    this.moveForm.hidden = !this.myTurn();
    const tileMode = this.myTurn() && !!this.mode;
    this.toolbar.querySelector(".tile-tools").hidden = !tileMode;
    // A seated player's toolbar keeps the tools' place while they are hidden (style.css).
    this.toolbar.classList.toggle("seated", this.state.status === "live" && this.seats.length > 0);
    this.tools.place.disabled = !(this.locked && this.legal.has(this.ghostMove()));
    this.tools.cancel.hidden = !this.locked;
    this.drawOverlays();
    this.buildMenu.render();
  }

  renderPlayers(s) {
    // Built again only when what the cards show changed (most moves change no card).
    const cardOf = (p) => [p.seat, p.name, p.kind, p.level, p.taken, p.eliminated, p.placed, p.supply];
    const shown = JSON.stringify([s.players.map(cardOf), s.to_move, s.status, !!s.result, s.options.expansions, this.seats]);
    if (shown === this.playersShown) return;
    this.playersShown = shown;
    const cards = s.players.map((p) => playerCard(s, p, {
      colour: this.board.playerColour(p.seat), yours: this.seats.includes(p.seat),
    }));
    clear(this.playersBox, ...cards);
    // Colours go in through the CSSOM (the page's policy forbids inline style attributes).
    for (const swatch of this.playersBox.querySelectorAll(".swatch")) {
      swatch.style.background = swatch.dataset.colour;
    }
  }

  renderResult(s) {
    showResult(this.banner, s.result, (seat) => this.board.playerColour(seat));
    this.ratingChanges.show(s, this.banner);
  }

  /** The whole game's moves, in a replay too (the moves after the one shown stay a click away). */
  renderLog() {
    this.moveLog ??= new MoveLog(this.log, (ply) => this.showReplay(ply));
    this.moveLog.show(this.state, this.replay ? this.replay.ply : null, !this.replay);
  }

  renderActions() {
    const s = this.state;
    this.hintButton.hidden = !(s.hints && !s.rated && this.myTurn());
    this.replayButton.textContent = this.replay ? t("Back to the game") : t("Replay");
    this.replayButton.hidden = s.ply === 0;
    this.rulesLink.href = rulesFor(s.options.expansions);
  }

  // ------------------------------------------------------------------ the tile being placed

  /** The code the legal spots of the tile being placed are filed under ("tile": the drawn one). */
  tileCode() {
    return this.mode.kind === "tile" ? "tile" : this.mode.code;
  }

  takeDouble(code) {
    this.mode = { kind: "double", code };
    this.orientation = 0;
    this.render();
  }

  ghostMove() {
    if (!this.mode || !this.cursor) return null;
    const [q, r] = this.cursor;
    if (this.mode.kind === "tile") return `tile ${q},${r} ${this.orientation}`;
    const [cq, cr, ck] = canonicalDouble(this.mode.code, q, r, this.orientation);
    return `double ${this.mode.code} ${cq},${cr} ${ck}`;
  }

  drawOverlays() {
    const s = this.replay ? this.replay.state : this.state;
    if (!s) return;
    const marks = { turns: lastTurns(s) };
    if (this.myTurn() && this.mode) {
      marks.spots = this.tileSpots.get(`${this.tileCode()}|${this.orientation}`) || [];
    } else if (this.myTurn() && this.state.phase === "build") {
      marks.targets = [...this.buildsByHex.keys()].map(parseKey);
      if (this.buildMenu.current) marks.selected = this.buildMenu.current.hex;
    }
    this.board.overlays.setMarks(marks);
    const keyboardCursor = this.input.keyboardCursor;
    this.board.overlays.setCursor(keyboardCursor && !this.mode ? keyboardCursor : null);
    if (this.myTurn() && this.mode && this.cursor) {
      const [q, r] = this.cursor;
      const double = this.mode.kind === "double";
      const hexes = double ? doubleFootprint(q, r, this.orientation) : tileFootprint(q, r, this.orientation);
      const terrains = tileTerrains(this.mode.code, double);
      const move = this.ghostMove();
      this.board.overlays.setGhost({ hexes: hexes.map(([a, b], i) => [a, b, terrains[i]]), legal: this.legal.has(move) });
    } else if (this.buildMenu.current?.selected) {
      this.board.overlays.setPreview(this.previewOf(this.buildMenu.current.selected));
    } else {
      this.board.overlays.setGhost(null);
    }
    this.review.drawSuggestion(s);
  }

  /** The pieces build `text` would add, for the board's preview. */
  previewOf(text, player = this.state.to_move) {
    return previewOf(text, player, (q, r) => this.board.level(q, r));
  }

  svgFocus() {
    if (document.activeElement !== this.board.svg) this.board.svg.focus({ preventScroll: true });
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
    if (!move) return;
    if (!this.legal.has(move)) {
      this.explanations.ghost(true);
      return;
    }
    this.play(move);
  }

  // ------------------------------------------------------------------ playing

  play(text) {
    text = (text || "").trim();
    if (!text) return;
    if (!this.myTurn()) { toast(t("It is not your turn."), "error"); return; }
    const ref = this.socket.send({ type: "move", state: this.state.ply, move: text });
    if (ref === null) { toast(t("Not connected: the move was not sent."), "error"); return; }
    this.explanations.sent(ref, text);
    this.moveInput.value = "";
    this.buildMenu.drop();
    this.locked = false;
    this.cursor = null;
    this.render();
    this.tooltip.textContent = t("Sent: {move}", { move: text });
  }

  askHint() {
    this.hintButton.disabled = true;
    this.hintText.textContent = t("Thinking…");
    this.socket.send({ type: "hint" });
  }

  showHint(message) {
    this.hintButton.disabled = false;
    if (message.ply !== this.state.ply) return;
    this.hintText.textContent = t("Hint: {move} (expected result {chance})", { move: message.move, chance: percent(message.value) });
    const m = parseMove(message.move);
    if ((m.kind === "tile" || m.kind === "double") && this.mode) {
      this.cursor = m.hex;
      this.orientation = m.k;
      this.locked = true;
      this.render();
      this.explanations.ghost();
    } else if (this.buildsByHex.size && m.kind !== "draw") {
      this.buildMenu.suggest(m.kind === "expand" ? m.hexes[0] : m.hex, message.move);
    }
  }
}
