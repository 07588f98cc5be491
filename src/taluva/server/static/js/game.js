// The game page: board, tile ghost, build menu, player panels, winner banner, move log, hints,
// replay.
// The server is the authority: this page only offers the moves the server lists as legal,
// and shows the position the server sends.

import { ApiError, GameSocket, api, playerName, tokens } from "./api.js";
import { Board } from "./board.js";
import { ClockPanel } from "./clock.js";
import { LeaveControls, leftInWords } from "./resign.js";
import { ChatPanel } from "./chat.js";
import { h, clear, toast } from "./dom.js";
import { playerCard, showResult } from "./panels.js";
import { RematchPanel } from "./rematch.js";
import { TurnSignals } from "./signals.js";
import { lastTurns, movesInWords } from "./movewords.js";
import { WinChancePanel } from "./winchance.js";
import { MoveLog } from "./movelog.js";
import { ReviewPanel } from "./review.js";
import {
  TERRAIN_NAMES, canonicalDouble, doubleFootprint, key, moveHexes, neighbour, parseKey,
  parseMove, tileFootprint, tileTerrains,
} from "./hex.js";

const KEY_MOVES = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

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
    this.menu = null; // {hex, moves, selected}
    this.replay = null; // {ply, state}
    this.explained = new Map();
    this.replayCache = new Map();
    this.build();
    this.socket = new GameSocket(gameId, {
      message: (m) => this.onMessage(m),
      status: (s) => this.onStatus(s),
    });
  }

  destroy() {
    this.socket.close();
    clearInterval(this.player);
    document.removeEventListener("keydown", this.keyHandler);
    this.signals.destroy();
    this.clocks.destroy();
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
    this.boardWrap = h("section", { class: "board-wrap", "aria-label": "Board" });
    this.toolbar = h("div", { class: "toolbar" },
      button("−", "Zoom out (-)", () => this.board.zoom(1.25)),
      button("+", "Zoom in (+)", () => this.board.zoom(0.8)),
      button("Fit", "Show the whole island (0)", () => this.board.fit()),
      button("↶", "Turn the view left ([)", () => this.board.turn(-1), { class: "turn-view" }),
      button("↷", "Turn the view right (])", () => this.board.turn(1), { class: "turn-view" }),
      h("span", { class: "tile-tools" }, this.tools.rotateLeft, this.tools.rotateRight, this.tools.place, this.tools.cancel),
    );
    this.tooltip = h("div", { class: "tooltip", role: "status", "aria-live": "polite" });
    this.menuBox = h("div", { class: "build-menu", hidden: true, role: "dialog", "aria-label": "Build" });
    this.boardHost = h("div", { class: "board-host" });
    this.help = h("p", { class: "help" },
      "Drag to pan, pinch or Ctrl+wheel to zoom. Tile: the wheel or R rotates, click or Enter places. ",
      "Keyboard: arrows move the cursor, Enter acts, Escape cancels.");
    // The winner banner: a live region, present (empty) from the start so that the end is announced.
    this.banner = h("section", { class: "result-banner", role: "status", "aria-live": "polite", "aria-label": "Result" });
    this.boardWrap.append(this.banner, this.toolbar, this.boardHost, this.tooltip, this.menuBox, this.help);
    this.title = h("h2", { class: "game-title" });
    this.statusLine = h("p", { class: "status-line", role: "status", "aria-live": "polite" });
    this.connection = h("span", { class: "connection" });
    this.tilePanel = h("div", { class: "tile-panel" });
    this.joinPanel = h("div", { class: "join-panel" });
    this.playersBox = h("div", { class: "players" });
    this.hintButton = h("button", { type: "button", class: "hint", onclick: () => this.askHint() }, "Hint");
    this.hintText = h("span", { class: "hint-text" });
    this.replayButton = h("button", { type: "button", id: "replay-toggle", onclick: () => this.toggleReplay() }, "Replay");
    this.download = h("a", { class: "button", href: `/api/games/${encodeURIComponent(this.id)}/record`, download: `taluva-${this.id}.json` }, "Download record");
    this.replayBox = h("div", { class: "replay", hidden: true });
    this.moveInput = h("input", { id: "move-input", list: "legal-moves", autocomplete: "off", placeholder: "type a move, e.g. hut 1,0", "aria-label": "Move text" });
    this.legalList = h("datalist", { id: "legal-moves" });
    this.moveForm = h("form", { class: "move-form", onsubmit: (e) => { e.preventDefault(); this.play(this.moveInput.value); } },
      this.moveInput, this.legalList, h("button", { type: "submit" }, "Play"));
    this.log = h("ol", { class: "log", "aria-label": "Moves" });
    const side = h("aside", { class: "side" },
      h("div", { class: "head" }, this.title, this.connection),
      this.statusLine, this.joinPanel, this.tilePanel, this.playersBox,
      h("div", { class: "actions" }, this.hintButton, this.replayButton, this.download), this.hintText,
      this.replayBox, this.moveForm,
      h("h3", {}, "Moves"), this.log);
    clear(this.root, h("div", { class: "game" }, this.boardWrap, side));
    // Chat, your-turn signals and rematch (js/chat.js, signals.js, rematch.js).
    this.signals = new TurnSignals();
    this.rematch = new RematchPanel(this.id);
    this.chat = new ChatPanel((message) => this.socket.send(message), this.config.limits);
    this.statusLine.after(this.rematch.node);
    // Clocks, and resigning or cancelling (js/clock.js, resign.js).
    this.clocks = new ClockPanel();
    this.leave = new LeaveControls(this.id, (message) => this.socket.send(message));
    this.playersBox.before(this.clocks.node);
    side.querySelector(".actions").after(this.leave.node);
    // The optional win-chance bar (js/winchance.js).
    this.winChance = new WinChancePanel((message) => this.socket.send(message), (seat) => this.board.playerColour(seat));
    this.hintText.after(this.winChance.node);
    side.append(this.signals.node, this.chat.node);
    // The game's review once it is over (js/review.js).
    this.review = new ReviewPanel(this);
    this.replayButton.after(this.review.button);
    this.replayBox.after(this.review.node);
    this.board = new Board(this.boardHost, this.config.style, {
      hover: (hex, event) => this.onHover(hex, event),
      click: (hex, event) => this.onClick(hex, event),
      wheel: (event) => this.onWheel(event),
      leave: () => { if (!this.locked && this.mode) { this.cursor = null; this.drawOverlays(); } },
    });
    this.keyHandler = (event) => this.onKey(event);
    document.addEventListener("keydown", this.keyHandler);
  }

  // ------------------------------------------------------------------ messages

  onStatus(status) {
    const words = { connected: "● live", reconnecting: "○ reconnecting…", missing: "no such game" };
    this.connection.textContent = words[status] || status;
    this.connection.className = `connection ${status}`;
    if (status === "missing") this.statusLine.textContent = "There is no such game.";
  }

  onMessage(message) {
    switch (message.type) {
      case "welcome":
        this.seats = message.seats;
        if (message.unknown_tokens) toast("A saved seat token was not accepted.", "error");
        this.chat.reset(message.chat || []);
        this.rematch.offer(message.rematch || null);
        this.setState(message.state);
        this.review.resync();
        break;
      case "move":
        this.setState(message.state, message);
        break;
      case "state":
        this.setState(message.state);
        break;
      case "out":
        toast(leftInWords(message.state.players[message.seat].name, message.reason));
        this.setState(message.state);
        break;
      case "explain":
        this.explained.set(`${message.ply}|${message.move}`, message);
        if (this.pendingExplain === message.move) this.showExplanation(message);
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
      this.menu = null;
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
    return this.indexLegal().tileSpots;
  }

  /** The legal builds by hex, "q,r" -> [move text], indexed at first use. */
  get buildsByHex() {
    return this.indexLegal().buildsByHex;
  }

  indexLegal() {
    if (this.legalIndex) return this.legalIndex;
    const tileSpots = new Map();
    const buildsByHex = new Map();
    for (const text of this.state?.legal || []) {
      const m = parseMove(text);
      if (m.kind === "tile" || m.kind === "double") {
        const code = m.kind === "tile" ? "tile" : m.code;
        const add = (q, r, k) => {
          const name = `${code}|${k}`;
          if (!tileSpots.has(name)) tileSpots.set(name, []);
          tileSpots.get(name).push([q, r]);
        };
        add(m.hex[0], m.hex[1], m.k);
        if (m.kind === "double" && (m.code === "VV" || m.code === "JJ")) {
          const [q, r] = neighbour(m.hex[0], m.hex[1], m.k);
          add(q, r, m.k + 3);
        }
      } else if (m.kind !== "draw") {
        let hexes = m.kind === "expand" ? m.hexes : [m.hex];
        if (m.kind === "ship") hexes = this.lagoonOf(m.hex) || hexes;
        for (const [q, r] of hexes) {
          const k = key(q, r);
          if (!buildsByHex.has(k)) buildsByHex.set(k, []);
          buildsByHex.get(k).push(text);
        }
      }
    }
    this.legalIndex = { tileSpots, buildsByHex };
    return this.legalIndex;
  }

  lagoonOf([q, r]) {
    for (const lagoon of this.state.lagoons || []) {
      if (lagoon.some(([a, b]) => a === q && b === r)) return lagoon;
    }
    return null;
  }

  myTurn() {
    const s = this.state;
    return !!s && !this.replay && s.status === "live" && this.seats.includes(s.to_move);
  }

  announce(text) {
    this.tooltip.textContent = text;
  }

  // ------------------------------------------------------------------ rendering

  render() {
    const s = this.replay ? this.replay.state : this.state;
    if (!s) return;
    this.title.textContent = this.state.name;
    const yourMove = this.state.status === "live" && this.seats.includes(this.state.to_move);
    this.signals.update(`${this.state.name} – Taluva`, yourMove);
    this.rematch.update(this.state, this.seats);
    this.chat.update(this.state.players, this.seats);
    this.clocks.update(this.state);
    this.leave.update(this.state, this.seats);
    this.winChance.update(this.state);
    this.renderStatus();
    this.renderJoin();
    this.renderTilePanel(s);
    this.renderPlayers(s);
    this.renderResult(s);
    this.renderLog(s);
    this.renderActions();
    this.renderReplay();
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
    this.renderMenu();
  }

  renderStatus() {
    const s = this.state;
    let text;
    if (this.replay) {
      text = `Replay: position after ${this.replay.ply} of ${s.ply} moves.`;
    } else if (s.status === "open") {
      text = "Waiting for players to take the free seats.";
    } else if (s.status === "cancelled") {
      text = "This game was cancelled by its host.";
    } else if (s.result) {
      text = "Game over.";
    } else {
      const player = s.players[s.to_move];
      const who = this.seats.length > 1 ? `Your turn (${player.name})` : "Your turn";
      if (this.myTurn()) {
        if (s.phase === "tile") {
          text = this.mode ? `${who}: place the ${this.mode.kind === "double" ? "double-hex tile " + this.mode.code : "tile"}.` : `${who}: draw a tile or take a double-hex tile.`;
        } else {
          text = `${who}: build. Click a highlighted hex.`;
        }
      } else if (player.kind === "ai") {
        text = `${player.name} is thinking…`;
      } else {
        text = `Waiting for ${player.name}.`;
      }
    }
    this.statusLine.textContent = text;
  }

  renderJoin() {
    const s = this.state;
    const free = s.players.filter((p) => p.kind === "human" && !p.taken);
    if (s.status !== "open" || !free.length) {
      clear(this.joinPanel);
      return;
    }
    const name = h("input", { value: playerName.get(), placeholder: "your name", maxlength: 160, "aria-label": "Your name", class: "join-name" });
    const link = h("input", { readonly: true, value: location.href, class: "join-link", "aria-label": "Link to this game", onfocus: (e) => e.target.select() });
    clear(this.joinPanel,
      h("p", {}, "Free seats: take one to play, or send this link to the other players:"),
      link,
      name,
      ...free.map((p) => h("button", {
        type: "button", class: "primary", "data-seat": p.seat,
        onclick: () => this.join(p.seat, name.value),
      }, `Take seat ${p.seat + 1}`)));
  }

  async join(seat, name) {
    try {
      playerName.set(name);
      const reply = await api("POST", `/api/games/${encodeURIComponent(this.id)}/seats/${seat}`, { name });
      tokens.add(this.id, reply.seat, reply.token);
      this.socket.send({ type: "hello", tokens: Object.values(tokens.forGame(this.id)) });
    } catch (error) {
      toast(error instanceof ApiError ? error.message : String(error), "error");
    }
  }

  renderTilePanel(s) {
    const parts = [h("span", { class: "tiles-left" }, `Tiles left: ${s.tiles_left}`)];
    if (s.tile && s.phase === "tile") {
      parts.push(h("span", { class: "drawn" }, "Drawn tile: ", this.tilePicture(s.tile, false)));
    }
    if (this.myTurn() && s.phase === "tile") {
      if (this.legal.has("draw")) {
        parts.push(h("button", { type: "button", class: "primary", onclick: () => this.play("draw") }, "Draw a tile"));
      }
      const codes = new Set(s.legal.filter((m) => m.startsWith("double ")).map((m) => m.split(" ")[1]));
      for (const code of codes) {
        parts.push(h("button", {
          type: "button", class: this.mode?.code === code ? "selected" : "",
          onclick: () => { this.mode = { kind: "double", code }; this.orientation = 0; this.render(); },
        }, "Take ", this.tilePicture(code, true)));
      }
    }
    if (s.doubles && s.doubles.length) parts.push(h("span", { class: "doubles" }, `Double-hex tiles face up: ${s.doubles.join(" ")}`));
    clear(this.tilePanel, ...parts);
  }

  tilePicture(code, double) {
    const terrains = tileTerrains(code, double);
    const svgNS = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(svgNS, "svg");
    const k = this.mode && this.mode.code === code ? this.orientation : 0;
    const hexes = double ? doubleFootprint(0, 0, k) : tileFootprint(0, 0, k);
    const size = 10;
    const pts = hexes.map(([q, r]) => [size * Math.sqrt(3) * (q + r / 2), size * 1.5 * r]);
    const xs = pts.map((p) => p[0]);
    const ys = pts.map((p) => p[1]);
    const minX = Math.min(...xs) - size; const minY = Math.min(...ys) - size;
    svg.setAttribute("viewBox", `${minX} ${minY} ${Math.max(...xs) - minX + size} ${Math.max(...ys) - minY + size}`);
    svg.setAttribute("class", "tile-picture");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", `tile ${code}: ${terrains.map((t) => TERRAIN_NAMES[t]).join(", ")}`);
    pts.forEach(([x, y], i) => {
      const poly = document.createElementNS(svgNS, "polygon");
      const corners = [];
      for (let c = 0; c < 6; c += 1) {
        const a = (Math.PI / 180) * (60 * c - 30);
        corners.push(`${(x + size * Math.cos(a)).toFixed(1)},${(y + size * Math.sin(a)).toFixed(1)}`);
      }
      poly.setAttribute("points", corners.join(" "));
      poly.setAttribute("fill", this.board.terrainFill(terrains[i], 2));
      poly.setAttribute("stroke", "#111");
      poly.setAttribute("stroke-width", "0.8");
      svg.appendChild(poly);
      const text = document.createElementNS(svgNS, "text");
      text.setAttribute("x", x); text.setAttribute("y", y + 3);
      text.setAttribute("text-anchor", "middle");
      text.setAttribute("class", "mini-letter");
      text.textContent = "VJCSRL"[terrains[i]];
      svg.appendChild(text);
    });
    return svg;
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
  }

  renderLog(s) {
    this.moveLog ??= new MoveLog(this.log, (ply) => this.showReplay(ply));
    this.moveLog.show(s, this.replay ? this.replay.ply : null, !this.replay);
  }

  renderActions() {
    const s = this.state;
    this.hintButton.hidden = !(s.hints && this.myTurn());
    this.replayButton.textContent = this.replay ? "Back to the game" : "Replay";
    this.replayButton.hidden = s.ply === 0;
  }

  // ------------------------------------------------------------------ overlays on the board

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
      const code = this.mode.kind === "tile" ? "tile" : this.mode.code;
      marks.spots = this.tileSpots.get(`${code}|${this.orientation}`) || [];
    } else if (this.myTurn() && this.state.phase === "build") {
      marks.targets = [...this.buildsByHex.keys()].map(parseKey);
      if (this.menu) marks.selected = this.menu.hex;
    }
    this.board.setMarks(marks);
    this.board.setCursor(this.keyboardCursor && !this.mode ? this.keyboardCursor : null);
    if (this.myTurn() && this.mode && this.cursor) {
      const [q, r] = this.cursor;
      const double = this.mode.kind === "double";
      const hexes = double ? doubleFootprint(q, r, this.orientation) : tileFootprint(q, r, this.orientation);
      const terrains = tileTerrains(this.mode.code, double);
      const move = this.ghostMove();
      this.buried = this.board.setGhost({ hexes: hexes.map(([a, b], i) => [a, b, terrains[i]]), legal: this.legal.has(move) });
    } else if (this.menu && this.menu.selected) {
      this.board.setPreview(this.previewOf(this.menu.selected));
    } else {
      this.board.setGhost(null);
    }
    this.review.drawSuggestion(s);
  }

  previewOf(text, player = this.state.to_move) {
    const m = parseMove(text);
    if (m.kind === "expand") {
      return m.hexes.map(([q, r]) => ({ hex: [q, r], kind: "hut", player, count: this.board.level(q, r) }));
    }
    if (m.kind === "hut") return [{ hex: m.hex, kind: "hut", player, count: 1 }];
    if (m.kind === "temple" || m.kind === "tower" || m.kind === "ship") return [{ hex: m.hex, kind: m.kind, player, count: 1 }];
    return [];
  }

  // ------------------------------------------------------------------ pointer and keys

  onHover(hex) {
    if (!this.myTurn() || !this.mode || this.locked) {
      if (this.myTurn() && this.state.phase === "build" && !this.menu) this.explainBuildHover(hex);
      return;
    }
    if (this.cursor && this.cursor[0] === hex[0] && this.cursor[1] === hex[1]) return;
    this.cursor = hex;
    this.drawOverlays();
    this.explainGhost();
  }

  onClick(hex, event) {
    this.svgFocus();
    if (!this.myTurn()) return;
    if (this.mode) {
      if (this.locked && this.cursor && key(...this.cursor) === key(...hex)) {
        this.confirmTile();
        return;
      }
      this.cursor = hex;
      this.locked = true;
      this.render();
      this.explainGhost();
      return;
    }
    if (this.state.phase === "build") this.openMenu(hex, event?.pointerType === "touch");
  }

  onWheel(event) {
    if (!this.myTurn() || !this.mode) return false;
    this.rotate(event.deltaY < 0 ? 1 : -1);
    return true;
  }

  svgFocus() {
    if (document.activeElement !== this.board.svg) this.board.svg.focus({ preventScroll: true });
  }

  onKey(event) {
    if (!this.root.isConnected) return;
    const target = event.target;
    if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement) return;
    const onBoard = target === this.board.svg || target === document.body;
    if (event.key === "Escape") {
      if (this.menu) { this.closeMenu(); event.preventDefault(); return; }
      if (this.locked) { this.unlock(); event.preventDefault(); return; }
    }
    if (!onBoard) return;
    if (event.key === "+" || event.key === "=") { this.board.zoom(0.8); return; }
    if (event.key === "-") { this.board.zoom(1.25); return; }
    if (event.key === "0") { this.board.fit(); return; }
    if (!this.myTurn()) return;
    if (event.key === "r" || event.key === "R") {
      event.preventDefault();
      this.rotate(event.shiftKey ? -1 : 1);
      return;
    }
    if (KEY_MOVES[event.key]) {
      event.preventDefault();
      const [dq, dr] = KEY_MOVES[event.key];
      const from = this.mode ? this.cursor : this.keyboardCursor;
      const start = from || this.defaultCursor();
      const next = from ? [start[0] + dq, start[1] + dr] : start;
      if (this.mode) {
        this.cursor = next;
        this.locked = true;
        this.render();
        this.explainGhost();
      } else {
        this.keyboardCursor = next;
        this.drawOverlays();
        this.announce(`Cursor on ${next[0]},${next[1]}`);
      }
      return;
    }
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      if (this.mode) {
        if (!this.cursor) { this.cursor = this.defaultCursor(); this.locked = true; this.render(); return; }
        if (!this.locked) { this.locked = true; this.render(); return; }
        this.confirmTile();
      } else if (this.state.phase === "build") {
        this.openMenu(this.keyboardCursor || this.defaultCursor());
      }
    }
  }

  defaultCursor() {
    if (this.mode) {
      const code = this.mode.kind === "tile" ? "tile" : this.mode.code;
      const spots = this.tileSpots.get(`${code}|${this.orientation}`);
      if (spots && spots.length) return spots[0];
    }
    const first = this.buildsByHex.keys().next();
    return first.done ? [0, 0] : parseKey(first.value);
  }

  rotate(step) {
    this.orientation = (this.orientation + step + 6) % 6;
    this.render();
    this.explainGhost();
  }

  unlock() {
    this.locked = false;
    this.render();
  }

  confirmTile() {
    const move = this.ghostMove();
    if (!move) return;
    if (!this.legal.has(move)) {
      this.explainGhost(true);
      return;
    }
    this.play(move);
  }

  // ------------------------------------------------------------------ explanations

  explainGhost(loud = false) {
    const move = this.ghostMove();
    if (!move) return;
    if (this.legal.has(move)) {
      const buried = (this.buried || []).map((b) => `${b.huts} hut${b.huts === 1 ? "" : "s"} of ${this.state.players[b.player]?.name}`);
      const loss = buried.length ? ` – destroys ${buried.join(" and ")}` : "";
      this.tooltip.textContent = `${move}: legal${loss}${this.locked ? " – click again, press Enter or “Place tile”" : ""}`;
      this.tooltip.className = "tooltip ok";
      return;
    }
    this.requestExplain(move, loud);
  }

  explainBuildHover(hex) {
    const k = key(...hex);
    if (this.buildsByHex.has(k)) {
      this.tooltip.className = "tooltip ok";
      this.tooltip.textContent = `${k}: ${this.buildsByHex.get(k).length} possible action(s) – click to choose`;
      return;
    }
    if (!this.board.levels.has(k)) { this.tooltip.textContent = ""; return; }
    this.requestExplain(`hut ${k}`, false);
  }

  requestExplain(move, loud) {
    const cacheKey = `${this.state.ply}|${move}`;
    this.pendingExplain = move;
    const known = this.explained.get(cacheKey);
    if (known) {
      this.showExplanation(known, loud);
      return;
    }
    clearTimeout(this.explainTimer);
    this.explainTimer = setTimeout(() => this.socket.send({ type: "explain", move }), 90);
  }

  showExplanation(message, loud = false) {
    if (message.ply !== this.state.ply) return;
    this.tooltip.className = message.legal ? "tooltip ok" : "tooltip bad";
    this.tooltip.textContent = message.legal ? `${message.move}: legal` : `Not here: ${message.reason}`;
    if (loud && !message.legal) toast(message.reason, "error");
  }

  // ------------------------------------------------------------------ build menu

  openMenu(hex, byTouch = false) {
    const moves = this.buildsByHex.get(key(...hex));
    if (!moves) {
      this.menu = null;
      this.requestExplain(`hut ${key(...hex)}`, true);
      this.render();
      return;
    }
    this.menu = { hex, moves, selected: moves.length === 1 ? moves[0] : null, opened: byTouch ? performance.now() : -Infinity };
    this.render();
    this.revealMenu();
    this.menuBox.querySelector("button")?.focus();
    if (byTouch) setTimeout(() => this.renderMenu(), 360);
  }

  /** Pan so that the chosen hex and every hex its builds touch stay clear of the build sheet. */
  revealMenu() {
    if (!this.menu) return;
    const hexes = [this.menu.hex, ...this.menu.moves.flatMap((m) => this.previewOf(m).map((p) => p.hex))];
    const sheet = this.menuBox.getBoundingClientRect();
    const board = this.board.svg.getBoundingClientRect();
    this.board.focus(hexes, Math.max(0, board.bottom - sheet.top));
  }

  closeMenu() {
    this.menu = null;
    this.render();
    this.svgFocus();
  }

  describe(text) {
    const m = parseMove(text);
    const huts = (n) => `${n} hut${n === 1 ? "" : "s"}`;
    switch (m.kind) {
      case "hut": return "Found a settlement (1 hut)";
      case "temple": return "Build a temple";
      case "tower": return "Build a tower";
      case "ship": return "Place a ship in this lagoon";
      case "expand": {
        const count = m.hexes.reduce((sum, [q, r]) => sum + this.board.level(q, r), 0);
        return `Expand into ${m.terrain}: ${m.hexes.length} hex${m.hexes.length === 1 ? "" : "es"}, ${huts(count)}`;
      }
      default: return text;
    }
  }

  /** Whether the menu has been open long enough to take a click: a touch that opened it is
   * followed by emulated mouse events that must not choose an action. */
  menuReady() {
    return !!this.menu && performance.now() - this.menu.opened > 350;
  }

  renderMenu() {
    const box = this.menuBox;
    if (!this.menu || !this.myTurn()) {
      box.hidden = true;
      clear(box);
      return;
    }
    const items = this.menu.moves.map((text) => h("button", {
      type: "button",
      class: `menu-item${this.menu.selected === text ? " selected" : ""}`,
      "data-move": text,
      "aria-pressed": this.menu.selected === text ? "true" : "false",
      onmouseenter: () => { this.board.setPreview(this.previewOf(text)); },
      onfocus: () => { this.board.setPreview(this.previewOf(text)); },
      onmouseleave: () => this.drawOverlays(),
      onclick: () => {
        if (!this.menuReady()) return;
        if (this.menu.selected === text) { this.play(text); return; }
        this.menu.selected = text;
        this.render();
        box.querySelector(`[data-move="${CSS.escape(text)}"]`)?.focus();
      },
      ondblclick: () => { if (this.menuReady()) this.play(text); },
    }, this.describe(text), h("small", {}, text)));
    const confirm = h("button", {
      type: "button", class: "primary confirm", disabled: !this.menu.selected,
      onclick: () => { if (this.menuReady()) this.play(this.menu.selected); },
    }, this.menu.selected ? `Confirm: ${this.describe(this.menu.selected)}` : "Choose an action");
    clear(box,
      h("div", { class: "menu-title" }, `Hex ${key(...this.menu.hex)}`),
      ...items, confirm,
      h("button", { type: "button", onclick: () => { if (this.menuReady()) this.closeMenu(); } }, "Cancel"));
    box.hidden = false;
    box.dataset.ready = this.menuReady() ? "true" : "false";
  }

  // ------------------------------------------------------------------ playing

  play(text) {
    text = (text || "").trim();
    if (!text) return;
    if (!this.myTurn()) { toast("It is not your turn.", "error"); return; }
    const ref = this.socket.send({ type: "move", state: this.state.ply, move: text });
    if (ref === null) { toast("Not connected: the move was not sent.", "error"); return; }
    this.moveInput.value = "";
    this.menu = null;
    this.locked = false;
    this.cursor = null;
    this.render();
    this.tooltip.textContent = `Sent: ${text}`;
  }

  askHint() {
    this.hintButton.disabled = true;
    this.hintText.textContent = "Thinking…";
    this.socket.send({ type: "hint" });
  }

  showHint(message) {
    this.hintButton.disabled = false;
    if (message.ply !== this.state.ply) return;
    const chance = Math.round(message.value * 100);
    this.hintText.textContent = `Hint: ${message.move} (expected result ${chance}%)`;
    const m = parseMove(message.move);
    if ((m.kind === "tile" || m.kind === "double") && this.mode) {
      this.cursor = m.hex;
      this.orientation = m.k;
      this.locked = true;
      this.render();
      this.explainGhost();
    } else if (this.buildsByHex.size && m.kind !== "draw") {
      const hex = m.kind === "expand" ? m.hexes[0] : m.hex;
      this.menu = { hex, moves: this.buildsByHex.get(key(...hex)) || [message.move], selected: message.move };
      this.render();
    }
  }

  // ------------------------------------------------------------------ replay

  toggleReplay() {
    if (this.replay) {
      this.replay = null;
      clearInterval(this.player);
      this.board.setState(this.state);
      this.render();
    } else {
      this.showReplay(this.state.result ? this.state.ply : Math.max(0, this.state.ply - 1));
    }
  }

  async showReplay(ply) {
    const total = this.state.ply;
    ply = Math.max(0, Math.min(ply, total));
    let snapshot = this.replayCache.get(ply);
    if (!snapshot) {
      try {
        snapshot = ply === total ? this.state : await api("GET", `/api/games/${encodeURIComponent(this.id)}/state?ply=${ply}`);
      } catch (error) {
        toast(error.message, "error");
        return;
      }
      if (ply !== total) this.replayCache.set(ply, snapshot);
    }
    const forward = this.replay ? ply === this.replay.ply + 1 : false;
    this.replay = { ply, state: snapshot };
    this.menu = null;
    this.board.setState(snapshot, { animate: forward });
    this.render();
  }

  renderReplay() {
    const box = this.replayBox;
    if (!this.replay) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    const total = this.state.ply;
    const ply = this.replay.ply;
    const slider = h("input", {
      type: "range", min: 0, max: total, value: ply, "aria-label": "Move number",
      oninput: (e) => this.showReplay(Number(e.target.value)),
    });
    const step = (label, title, target) => h("button", { type: "button", title, "aria-label": title, onclick: () => this.showReplay(target) }, label);
    const playButton = h("button", {
      type: "button", title: "Play the game move by move",
      onclick: () => {
        if (this.player) { clearInterval(this.player); this.player = null; this.render(); return; }
        this.player = setInterval(() => {
          if (!this.replay || this.replay.ply >= this.state.ply) { clearInterval(this.player); this.player = null; this.render(); return; }
          this.showReplay(this.replay.ply + 1);
        }, 700);
        this.render();
      },
    }, this.player ? "Pause" : "Play");
    clear(box,
      h("div", { class: "replay-controls" },
        step("⇤", "First position", 0), step("◀", "Previous move", ply - 1), playButton,
        step("▶", "Next move", ply + 1), step("⇥", "Last position", total)),
      slider,
      h("div", { class: "replay-ply" }, `Move ${ply} of ${total}${ply > 0 ? ": " + this.state.moves[ply - 1] : ""}`));
  }
}
