// The tooltip's explanations: a tile spot asks the server whether it is legal and, if so,
// what it would destroy, or if not why (the engine's own facts and words, kept per position),
// so a player learns the rules by pointing; a "?" after a refusal opens its rule in "How to
// play".

import { toast } from "./dom.js";
import { key } from "./hex.js";
import { t, tn } from "./i18n.js";
import { hutsDestroyed } from "./movewords.js";
import { ruleLink, topicOf } from "./rules.js";

/** Wait this long (ms) after the pointer stops before asking the server. */
const ASK_DELAY = 90;

export class Explanations {
  /** `page` is the GamePage: its tooltip, state, legal moves, ghost tile and socket. */
  constructor(page) {
    this.page = page;
    this.known = new Map(); // "ply|move" -> the server's answer
    this.pending = null;
    this.timer = null;
  }

  /** Say whether the ghost tile's spot is legal (and what it destroys), or why not; `loud`
   * also shows the reason as a toast (the player tried to place it there). */
  ghost(loud = false) {
    const page = this.page;
    const move = page.ghostMove();
    if (!move) return;
    if (page.legal.has(move)) {
      page.tooltip.textContent = this.legalText(move, null);
      page.tooltip.className = "tooltip ok";
    }
    this.request(move, loud);
  }

  /** A legal move in words: what it destroys (the server's `effect`, once it has answered),
   * and how to place a locked tile. */
  legalText(move, effect) {
    const page = this.page;
    const players = page.state.players;
    const destroyed = [...(effect?.destroyed || [])].sort((a, b) => a.seat - b.seat);
    const victims = hutsDestroyed(destroyed, (seat) => players[seat]?.name);
    const locked = page.locked && move === page.ghostMove();
    if (victims && locked) return t("{move}: legal – destroys {victims} – click again, press Enter or “Place tile”", { move, victims });
    if (victims) return t("{move}: legal – destroys {victims}", { move, victims });
    if (locked) return t("{move}: legal – click again, press Enter or “Place tile”", { move });
    return t("{move}: legal", { move });
  }

  /** Say what a hex offers in the build phase, or why nothing can be built there. */
  buildHover(hex) {
    const page = this.page;
    const k = key(...hex);
    if (page.buildsByHex.has(k)) {
      page.tooltip.className = "tooltip ok";
      const n = page.buildsByHex.get(k).length;
      page.tooltip.textContent = tn("{hex}: {n} possible action – click to choose", "{hex}: {n} possible actions – click to choose", n, { hex: k });
      return;
    }
    // The sea keeps the last words, so that the pointer can leave the island for their "?".
    if (!page.board.levels.has(k)) return;
    this.request(`hut ${k}`, false);
  }

  /** Show why `move` is illegal now, asking the server unless this position's answer is known. */
  request(move, loud) {
    this.pending = move;
    const known = this.known.get(`${this.page.state.ply}|${move}`);
    if (known) {
      this.show(known, loud);
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.page.socket.send({ type: "explain", move }), ASK_DELAY);
  }

  /** A move was sent to the server: if it refuses it, `onError` says why, with its rule. */
  sent(ref, move) {
    this.sentMove = { ref, move };
  }

  /** The server's refusal of a move sent (a typed one): the reason, and a "?" to its rule. */
  onError(message) {
    const sent = this.sentMove;
    if (message.code !== "illegal" || !sent || message.ref !== sent.ref || !this.page.myTurn()) return;
    const tooltip = this.page.tooltip;
    tooltip.className = "tooltip bad";
    const words = t("Not played: {reason}", { reason: message.message });
    tooltip.textContent = `${words} `;
    const board = this.page.board;
    const topic = topicOf(sent.move.toLowerCase(), (q, r) => board.level(q, r), board.levels.size > 0);
    if (topic) tooltip.append(ruleLink(topic, t("the rule behind “{reason}”", { reason: message.message })));
  }

  /** A move was played: a question not yet sent was about the position before it. */
  forget() {
    clearTimeout(this.timer);
    this.pending = null;
  }

  /** The server's answer to an "explain" request. */
  onMessage(message) {
    this.known.set(`${message.ply}|${message.move}`, message);
    if (this.pending === message.move) this.show(message);
  }

  show(message, loud = false) {
    const tooltip = this.page.tooltip;
    if (message.ply !== this.page.state.ply) return;
    tooltip.className = message.legal ? "tooltip ok" : "tooltip bad";
    const refusal = message.legal ? null : t("Not here: {reason}", { reason: message.reason });
    tooltip.textContent = message.legal ? this.legalText(message.move, message.effect) : `${refusal} `;
    // The rule behind a refusal of the rules (not of the game's state: over, or not started).
    if (!message.legal && this.page.myTurn()) {
      const board = this.page.board;
      const topic = topicOf(message.move, (q, r) => board.level(q, r), board.levels.size > 0);
      if (topic) tooltip.append(ruleLink(topic, t("the rule behind “{reason}”", { reason: message.reason })));
    }
    if (loud && !message.legal) toast(message.reason, "error");
  }
}
