// Leaving a game: the resign button (with a confirmation) for a player still in a live game,
// the host's cancel button for a game that has not started, and, when the player to move has
// gone (no page of theirs open), the countdown to claiming the win against them, then the
// button that claims it. The server says how long to wait; this page only counts it down.

import { h, clear } from "./dom.js";
import { t } from "./i18n.js";

const HOSTS_KEY = "taluva.hosts";

/** Host tokens this browser holds, by game: only the game's creator gets one. */
export const hosts = {
  get(gameId) {
    try {
      return JSON.parse(localStorage.getItem(HOSTS_KEY) || "{}")[gameId] || null;
    } catch {
      return null;
    }
  },
  add(gameId, token) {
    let all = {};
    try {
      all = JSON.parse(localStorage.getItem(HOSTS_KEY) || "{}");
    } catch {
      all = {};
    }
    all[gameId] = token;
    localStorage.setItem(HOSTS_KEY, JSON.stringify(all));
  },
};

/** Words for a player leaving: "Ben resigned", "Ben ran out of time", or, put out by the
 * others' claim, "Ben was gone too long". */
export function leftInWords(name, reason, claimed = false) {
  if (claimed || reason === "left") return t("{name} was gone too long and left the game", { name });
  return reason === "timeout" ? t("{name} ran out of time", { name }) : t("{name} resigned", { name });
}

/** A wait before a claim, to the second: "0:42", "1:05". */
export function waitInWords(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

export class LeaveControls {
  /** `abortTurns`: the first turns in which a player may abort the game (/api/config). */
  constructor(gameId, send, abortTurns = 0) {
    this.gameId = gameId;
    this.send = send;
    this.abortTurns = abortTurns;
    this.confirming = null; // "resign" | "cancel" | "abort"
    this.node = h("div", { class: "leave" });
    this.gone = null; // the players[] entry of the player a claim may come against
    this.claimAt = 0; // performance.now() when that claim is allowed
    this.timer = null;
  }

  /** The player to move whom this browser's players may claim the win against (they are
   * gone: the server gives a wait, `claim_in_ms`), or null. */
  claimable(state, seats, seat) {
    if (seat === null || seats.includes(state.to_move)) return null;
    const gone = state.players[state.to_move];
    return gone && typeof gone.claim_in_ms === "number" ? gone : null;
  }

  /** "Ben has left" with the countdown to the claim, or once it is allowed the button that
   * claims the win (or, with others still in the game, removes Ben). */
  claimNodes(state, gone) {
    clearTimeout(this.timer);
    this.timer = null;
    if (!gone) {
      this.gone = null;
      return [];
    }
    if (gone !== this.gone) {
      this.gone = gone;
      this.claimAt = performance.now() + gone.claim_in_ms;
    }
    const wait = this.claimAt - performance.now();
    if (wait > 0) {
      const time = h("span", { class: "claim-time", role: "timer" }, waitInWords(wait));
      const tick = () => {
        if (!this.node.isConnected || this.gone !== gone) return;
        const left = this.claimAt - performance.now();
        if (left <= 0) {
          this.update(this.state, this.seats);
          return;
        }
        time.textContent = waitInWords(left);
        this.timer = setTimeout(tick, Math.min(250, left));
      };
      this.timer = setTimeout(tick, Math.min(250, wait));
      // The countdown is a node of its own inside the sentence, where the language puts it.
      const [before, after = ""] = t("{name} has left: claim the win in {time}", { name: gone.name }).split("{time}");
      return [h("p", { class: "claim-wait" }, before, time, after)];
    }
    const still = state.players.filter((p) => !p.eliminated).length;
    const label = still > 2 ? t("Remove {name}", { name: gone.name }) : t("Claim the win");
    const claim = h("button", {
      type: "button", class: "primary leave-claim",
      onclick: () => this.send({ type: "claim", seat: gone.seat }),
    }, label);
    return [h("div", { class: "claim" }, h("p", { role: "status" }, t("{name} has left the game.", { name: gone.name })), claim)];
  }

  /** The seat this browser would resign: the one to move if it is ours, else our first still in. */
  seatToResign(state, seats) {
    const still = seats.filter((seat) => !state.players[seat]?.eliminated);
    if (still.includes(state.to_move)) return state.to_move;
    return still.length ? still[0] : null;
  }

  update(state, seats) {
    this.state = state;
    this.seats = seats;
    const seat = state.status === "live" ? this.seatToResign(state, seats) : null;
    const host = state.status === "open" ? hosts.get(this.gameId) : null;
    const claim = this.claimNodes(state, this.claimable(state, seats, seat));
    if (seat === null && !host) {
      this.confirming = null;
      clear(this.node);
      return;
    }
    const actions = seat !== null ? ["resign"] : ["cancel"];
    if (seat !== null && state.ply < 2 * this.abortTurns) actions.push("abort");
    if (!actions.includes(this.confirming)) this.confirming = null;
    const name = seat !== null ? state.players[seat].name : "";
    const ask = (action) => () => { this.confirming = action; this.update(state, seats); };
    if (!this.confirming) {
      const labels = {
        resign: seats.length > 1 ? t("Resign ({name})", { name }) : t("Resign"),
        cancel: t("Cancel game"),
        abort: t("Abort game"),
      };
      clear(this.node, ...claim, ...actions.map((action) =>
        h("button", { type: "button", class: `leave-${action}`, onclick: ask(action) }, labels[action])));
      return;
    }
    const action = this.confirming;
    const questions = {
      resign: seats.length > 1
        ? t("Resign {name}'s seat? You will be out of the game.", { name })
        : t("Resign this game? You will be out of the game."),
      cancel: t("Cancel this game? It leaves the lobby for good."),
      abort: t("Abort this game? It ends with no result, and no rating changes."),
    };
    const messages = {
      resign: { type: "resign", seat },
      cancel: { type: "cancel", host_token: host },
      abort: { type: "abort" },
    };
    const yes = h("button", {
      type: "button", class: "danger confirm-leave",
      onclick: () => {
        this.confirming = null;
        this.send(messages[action]);
        this.update(state, seats);
      },
    }, { resign: t("Yes, resign"), cancel: t("Yes, cancel it"), abort: t("Yes, abort it") }[action]);
    const no = h("button", { type: "button", onclick: () => { this.confirming = null; this.update(state, seats); } },
      action === "cancel" ? t("Keep the game") : t("Keep playing"));
    clear(this.node, ...claim, h("div", { class: "confirm", role: "alertdialog", "aria-label": questions[action] },
      h("p", {}, questions[action]), yes, no));
    yes.focus();
  }
}
