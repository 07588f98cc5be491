// The header's inbox, on every page while signed in: a badge saying what waits for you ("Your
// move in 2 games", "Ana challenges you", "Ben offers a rematch"), and a panel with each of
// them: the games, the challenges to accept or decline, the rematches to play, the answers to
// your challenges and your seeks. It asks the server every 15 seconds, whenever the page gets
// the focus back and at each change of page; when a challenge you sent is accepted or a seek
// of yours starts, it takes you to the game.

import { ApiError, api, tokens } from "./api.js";
import { h, clear, toast } from "./dom.js";
import { number, t, tn } from "./i18n.js";
import { currentAccount, onAccountChange } from "./account.js";
import { rated, setupWords } from "./seeks.js";

const POLL_MS = 15000;

/** Take the signed-in account's old seats in the rematch `offer` (an inbox entry); the
 * rematch's id. */
export async function takeRematch(offer) {
  const answer = await api("POST", `/api/games/${encodeURIComponent(offer.rematch_of)}/rematch`);
  for (const held of answer.tokens) tokens.add(answer.game.id, held.seat, held.token);
  return answer.game.id;
}

export class Inbox {
  constructor(node) {
    this.node = node;
    this.data = null;
    this.open = false;
    this.asking = false;
    this.waiting = new Set(); // sent challenges and seeks seen open: followed to their game
    this.badge = h("button", {
      type: "button", id: "inbox-badge", class: "inbox-badge", "aria-expanded": "false",
      "aria-controls": "inbox-panel", onclick: () => this.toggle(),
    });
    this.panel = h("div", { id: "inbox-panel", class: "inbox-panel", role: "region", "aria-label": t("Inbox"), hidden: true });
    clear(node, this.badge, this.panel);
    node.hidden = true;
    onAccountChange(() => { this.waiting.clear(); this.poll(); });
    window.addEventListener("focus", () => this.poll());
    window.addEventListener("hashchange", () => { this.toggle(false); this.poll(); });
    document.addEventListener("visibilitychange", () => { if (!document.hidden) this.poll(); });
    document.addEventListener("keydown", (e) => { if (e.key === "Escape" && this.open) this.toggle(false); });
    setInterval(() => this.poll(), POLL_MS); // hidden pages too: asking keeps your seeks
    this.poll();
  }

  toggle(open = !this.open) {
    this.open = open;
    this.panel.hidden = !open;
    this.badge.setAttribute("aria-expanded", String(open));
  }

  async poll() {
    if (!currentAccount()) {
      this.data = null;
      this.node.hidden = true;
      this.toggle(false);
      return;
    }
    if (this.asking) return;
    this.asking = true;
    try {
      this.data = await api("GET", "/api/my/inbox");
      if (this.follow()) return;
      this.render();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) this.node.hidden = true;
    } finally {
      this.asking = false;
    }
  }

  /** Go to the game of a challenge you sent that was just accepted, or of a seek of yours
   * that just started; whether it did. */
  follow() {
    const { sent, seeks } = this.data;
    const items = [...sent.map((c) => [`c${c.id}`, c.status === "open", c.status === "accepted" && c.game, t("{name} accepted your challenge.", { name: c.to.name })]),
      ...seeks.map((s) => [`s${s.id}`, s.status === "open", s.status === "matched" && s.game, t("Your game has started.")])];
    for (const [key, open, game, words] of items) {
      if (open) this.waiting.add(key);
      else if (game && this.waiting.delete(key)) {
        toast(words);
        this.go(game);
        return true;
      }
    }
    return false;
  }

  go(gameId) {
    this.toggle(false);
    location.hash = `#/game/${encodeURIComponent(gameId)}`;
  }

  render() {
    const { your_move: moves, challenges, rematches, sent } = this.data;
    const seeks = this.data.seeks.filter((s) => s.status === "open"); // started ones: followed
    const count = moves.count + challenges.length + rematches.length;
    const headline = challenges.length
      ? t("{name} challenges you", { name: challenges[0].from.name })
      : rematches.length
        ? t("{name} offers a rematch", { name: rematches[0].by.name })
        : moves.count ? tn("Your move in {n} game", "Your move in {n} games", moves.count) : "";
    const others = sent.length + seeks.length;
    this.node.hidden = !count && !others;
    this.badge.classList.toggle("urgent", challenges.length + rematches.length > 0);
    const quiet = seeks.length ? t("Looking for a game")
      : sent.some((x) => x.status === "open") ? t("Challenge sent") : t("Inbox");
    clear(this.badge, headline || quiet,
      count > 1 ? h("span", { class: "inbox-count", "aria-label": t("{count} in all", { count }) }, number(count)) : null);
    const sections = [];
    if (moves.count) {
      sections.push(h("section", { class: "inbox-moves" },
        h("h3", {}, tn("Your move in {n} game", "Your move in {n} games", moves.count)),
        h("ul", {}, ...moves.games.map((g) => h("li", {},
          h("a", { href: `#/game/${encodeURIComponent(g.id)}`, class: "inbox-game", "data-game": g.id, onclick: () => this.toggle(false) },
            g.name, " · ", t("with {players}", { players: g.players.filter((p) => p.seat !== g.seat).map((p) => p.name).join(", ") })))))));
    }
    for (const c of challenges) {
      sections.push(h("section", { class: "inbox-challenge", "data-challenge": c.id },
        h("p", {}, t("{name} challenges you: {game}", { name: rated(c.from), game: setupWords(c.setup) })),
        h("div", { class: "row" },
          h("button", { type: "button", class: "primary inbox-accept", onclick: () => this.answer(c, "accept") }, t("Accept")),
          h("button", { type: "button", class: "inbox-decline", onclick: () => this.answer(c, "decline") }, t("Decline")))));
    }
    for (const r of rematches) {
      sections.push(h("section", { class: "inbox-rematch", "data-game": r.game },
        h("p", {}, t("{name} offers a rematch of {game}", { name: r.by.name, game: r.name })),
        h("button", { type: "button", class: "primary inbox-play", onclick: () => this.rematch(r) }, t("Play"))));
    }
    for (const c of sent) {
      const words = {
        open: () => t("You challenged {name}: {game}. Waiting for an answer.", { name: rated(c.to), game: setupWords(c.setup) }),
        accepted: () => t("{name} accepted your challenge.", { name: c.to.name }),
        declined: () => t("{name} declined your challenge.", { name: c.to.name }),
        cancelled: () => t("You cancelled your challenge to {name}.", { name: c.to.name }),
        expired: () => t("Your challenge to {name} expired.", { name: c.to.name }),
      }[c.status]?.();
      sections.push(h("section", { class: "inbox-sent", "data-challenge": c.id }, h("p", {}, words),
        c.status === "open" ? h("button", { type: "button", class: "inbox-cancel", onclick: () => this.cancel(`/api/challenges/${c.id}`) }, t("Cancel")) : null,
        c.status === "accepted" && c.game ? h("a", { class: "button", href: `#/game/${encodeURIComponent(c.game)}` }, t("Go to the game")) : null));
    }
    for (const s of seeks) {
      sections.push(h("section", { class: "inbox-seek", "data-seek": s.id },
        h("p", {}, t("Looking for a game: {game}", { game: setupWords(s.setup) })),
        h("button", { type: "button", class: "inbox-cancel", onclick: () => this.cancel(`/api/seeks/${s.id}`) }, t("Stop looking"))));
    }
    clear(this.panel, ...sections);
  }

  async answer(challenge, how) {
    try {
      const { challenge: answered } = await api("POST", `/api/challenges/${challenge.id}/${how}`);
      if (how === "accept" && answered.game) this.go(answered.game);
    } catch (error) {
      toast(error instanceof ApiError ? error.message : String(error), "error");
    }
    this.poll();
  }

  /** Take your seat in a rematch offered to you, then go to it. */
  async rematch(offer) {
    try {
      this.go(await takeRematch(offer));
    } catch (error) {
      toast(error instanceof ApiError ? error.message : String(error), "error");
    }
    this.poll();
  }

  async cancel(path) {
    try {
      await api("DELETE", path);
    } catch (error) {
      toast(error instanceof ApiError ? error.message : String(error), "error");
    }
    this.poll();
  }
}

const node = document.getElementById("inbox");
const mounted = node ? new Inbox(node) : null;

/** Ask the server for the inbox now (after sending a challenge, say). */
export function refreshInbox() {
  mounted?.poll();
}
