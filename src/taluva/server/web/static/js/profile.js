// A player's profile: games, wins, average place, rating and its history (an SVG plot drawn
// here), Board Game Arena-like statistics, and the recent games.

import { api } from "./api.js";
import { h, clear } from "./dom.js";
import { number, t } from "./i18n.js";
import { challengeButton } from "./challenge.js";
import { ratingText } from "./ratings.js";

const SVG = "http://www.w3.org/2000/svg";
const PLOT = { width: 600, height: 220, left: 44, right: 12, top: 14, bottom: 28 };

/** How a game ended, as a whole sentence each ("Ended: " and the reason). */
const ENDINGS = {
  victory: t("Ended: placed two kinds of pieces"),
  "last-standing": t("Ended: last one standing"),
  tiles: t("Ended: tiles ran out"),
  "no-placement": t("Ended: no tile could be placed"),
  resigned: t("Ended: resignation"),
  timeout: t("Ended: time ran out"),
  left: t("Ended: a player left"),
};

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  for (const child of children) node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

/** The rating after each rated game as an SVG line plot (points carry a <title> each). */
export function ratingPlot(history) {
  const { width, height, left, right, top, bottom } = PLOT;
  const values = history.map((p) => p.rating);
  let low = Math.min(0, ...values);
  let high = Math.max(...values, low + 1);
  const pad = (high - low) * 0.1;
  low -= pad;
  high += pad;
  const x = (i) => left + (history.length === 1 ? (width - left - right) / 2 : (i * (width - left - right)) / (history.length - 1));
  const y = (v) => top + ((high - v) * (height - top - bottom)) / (high - low);
  const first = values[0];
  const last = values[values.length - 1];
  const plot = svg("svg", {
    viewBox: `0 0 ${width} ${height}`, class: "rating-plot", role: "img",
    "aria-label": t("Rating after each of {count} rated games, from {first} to {last}", { count: values.length, first: String(first), last: String(last) }),
  });
  const ticks = [low + pad, (low + high) / 2, high - pad];
  for (const tick of ticks) {
    plot.appendChild(svg("line", { x1: left, x2: width - right, y1: y(tick), y2: y(tick), class: "grid" }));
    plot.appendChild(svg("text", { x: left - 6, y: y(tick) + 4, "text-anchor": "end", class: "axis" }, number(tick, { minimumFractionDigits: 1, maximumFractionDigits: 1, useGrouping: false })));
  }
  plot.appendChild(svg("text", { x: left, y: height - 8, class: "axis" }, t("first rated game")));
  plot.appendChild(svg("text", { x: width - right, y: height - 8, "text-anchor": "end", class: "axis" }, t("latest")));
  const points = history.map((p, i) => `${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" ");
  plot.appendChild(svg("polyline", { points, class: "line" }));
  history.forEach((p, i) => {
    const dot = svg("circle", { cx: x(i).toFixed(1), cy: y(p.rating).toFixed(1), r: 4, class: "dot" });
    dot.appendChild(svg("title", {}, t("Game {n}: {rating}", { n: i + 1, rating: String(p.rating) })));
    plot.appendChild(dot);
  });
  return plot;
}

export class ProfilePage {
  constructor(root, playerId) {
    this.root = root;
    this.id = playerId;
    clear(root, h("div", { class: "account-page" }, h("p", {}, t("Loading…"))));
    this.load();
  }

  destroy() {}

  async load() {
    try {
      const { player } = await api("GET", `/api/players/${encodeURIComponent(this.id)}`);
      this.render(player);
    } catch (error) {
      clear(this.root, h("div", { class: "account-page" },
        h("h1", {}, t("Player")), h("p", { class: "fatal" }, error.status === 404 ? t("There is no such player.") : t("Cannot load: {error}", { error: error.message }))));
    }
  }

  render(p) {
    const s = p.stats;
    const figure = (label, value) => h("div", { class: "figure" }, h("dt", {}, label), h("dd", {}, typeof value === "number" ? number(value) : String(value)));
    const summary = h("dl", { class: "figures", id: "profile-summary" },
      figure(t("Games"), p.games),
      figure(t("Wins"), p.wins),
      figure(t("Average place"), p.average_place ?? "–"),
      figure(t("Rating"), p.rating ? ratingText(p.rating.rating, p.rating.provisional) : t("unrated")));
    const stats = h("dl", { class: "figures", id: "profile-stats" },
      figure(t("Tiles placed"), s.tiles),
      figure(t("Huts built"), s.huts),
      figure(t("Temples built"), s.temples),
      figure(t("Towers built"), s.towers),
      figure(t("Huts lost to eruptions"), s.huts_lost),
      figure(t("Highest level built on"), s.highest_level),
      figure(t("Wins by placing two kinds of pieces"), s.wins_by_pieces),
      figure(t("Wins when the tiles ran out"), s.wins_by_tiles));
    const history = p.history.length
      ? ratingPlot(p.history)
      : h("p", { class: "empty" }, t("No rated game yet: a game is rated when it is created rated (with a clock, every seat a signed-in player or an AI)."));
    const recent = p.recent.length
      ? h("ul", { class: "games", id: "profile-recent" }, ...p.recent.map((g) =>
        h("li", { class: "game-entry" },
          h("a", { href: `#/game/${encodeURIComponent(g.game)}`, class: "button" }, t("Replay")),
          h("span", { class: "game-name" }, g.name),
          h("span", { class: "game-players" }, g.rated
            ? t("Place {place} of {players} · rated", { place: g.place, players: g.players })
            : t("Place {place} of {players}", { place: g.place, players: g.players })),
          h("span", { class: "game-meta" }, ENDINGS[g.reason] || t("Ended: {reason}", { reason: g.reason })))))
      : h("p", { class: "empty" }, t("No finished game yet."));
    clear(this.root, h("div", { class: "account-page" },
      h("h1", { id: "profile-name" }, p.name),
      challengeButton(p),
      summary,
      h("h2", {}, t("Rating history")), history,
      h("h2", {}, t("Statistics")), stats,
      h("h2", {}, t("Recent games")), recent));
  }
}
