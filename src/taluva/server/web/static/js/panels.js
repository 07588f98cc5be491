// The game page's status line, player cards and the end-of-game banner. Every text about the end of a
// game comes from the server (the engine's words), never composed here; every text goes in
// as text (textContent or text nodes), never as markup.

import { h, clear } from "./dom.js";
import { t, tn } from "./i18n.js";
import { pieceIcon } from "./pieces.js";

// The kinds of piece in the order that ranks players (temples first), each with its line.
const PIECES = [
  ["temples", (placed, left) => t("Temples: {placed} placed, {left} left", { placed, left })],
  ["towers", (placed, left) => t("Towers: {placed} placed, {left} left", { placed, left })],
  ["huts", (placed, left) => t("Huts: {placed} placed, {left} left", { placed, left })],
  ["ships", (placed, left) => t("Ships: {placed} placed, {left} left", { placed, left })],
];

/** "Huts: 8 placed, 12 left" for each kind of piece a player has (ships only with the expansion). */
export function piecesInWords(player, options) {
  const ships = (options.expansions || []).includes("ships");
  return PIECES.filter(([name]) => name !== "ships" || ships)
    .map(([name, line]) => line(player.placed[name], player.supply[name]));
}

/** One card a seat: colour swatch, name with tags, then the pieces placed and left, each kind
 * with its icon in the seat's colour. */
export function playerCard(s, p, { colour, yours }) {
  const tags = [];
  if (yours) tags.push(h("span", { class: "tag you" }, t("you")));
  if (p.kind === "ai") tags.push(h("span", { class: "tag" }, t("AI {level}", { level: p.level })));
  if (p.eliminated) tags.push(h("span", { class: "tag out" }, t("eliminated")));
  if (!p.taken) tags.push(h("span", { class: "tag" }, t("free seat")));
  const toMove = !s.result && s.status === "live" && s.to_move === p.seat;
  if (toMove) tags.unshift(h("span", { class: "tag turn" }, t("to move")));
  const ships = (s.options.expansions || []).includes("ships");
  const kinds = PIECES.filter(([name]) => name !== "ships" || ships).map(([name]) => name);
  const pieces = piecesInWords(p, s.options).map((text, index) => h("li", { class: "piece-count", "data-kind": kinds[index] },
    pieceIcon(kinds[index], p.seat, () => colour), text));
  return h("div", { class: `player${toMove ? " to-move" : ""}`, "data-seat": p.seat },
    h("span", { class: "swatch", "data-colour": colour }),
    h("div", { class: "player-body" },
      h("div", { class: "player-name" }, toMove ? "▶ " : "", p.name, " ", ...tags),
      h("ul", { class: "supply", "aria-label": t("Pieces of {name}", { name: p.name }) }, ...pieces)));
}

/**
 * The winner banner: the server's headline (who won and why) and one line a place, each with
 * the seat's colour, in the live region ``banner`` (role="status"), or nothing while the game
 * runs. The banner is only rewritten when its text changes, so screen readers announce the
 * end once.
 */
export function showResult(banner, result, colourOf) {
  const text = result ? [result.headline, ...result.lines].join("\n") : "";
  if (banner.dataset.shown === text) return;
  banner.dataset.shown = text;
  if (!result) {
    clear(banner);
    return;
  }
  const headline = h("p", { class: "headline" });
  headline.textContent = result.headline;
  // ``lines`` and ``places`` are both in ranking order: the place names the line's seat.
  const lines = result.lines.map((line, index) => {
    const swatch = h("span", { class: "swatch", "aria-hidden": "true" });
    swatch.style.background = colourOf(result.places[index].seat);
    const words = h("span");
    words.textContent = line;
    return h("li", {}, swatch, words);
  });
  clear(banner, headline, h("ol", { class: "ranking", "aria-label": t("Final ranking") }, ...lines));
}

/** The status line: whose turn it is and what they do now, or how the game stands. `seats`
 * are this page's, `replay` the replay shown (or null), `mode` the tile being placed. */
export function statusInWords(s, { seats, replay, yourTurn, mode }) {
  if (replay) return tn("Replay: position after {ply} of {n} move.", "Replay: position after {ply} of {n} moves.", s.ply, { ply: replay.ply });
  if (s.status === "open") return t("Waiting for players to take the free seats.");
  if (s.status === "cancelled") return t("This game was cancelled by its host.");
  if (s.result) return t("Game over.");
  const player = s.players[s.to_move];
  if (!yourTurn) return player.kind === "ai" ? t("{name} is thinking…", { name: player.name }) : t("Waiting for {name}.", { name: player.name });
  // Hot seat (several seats in this browser): the turn says whose it is.
  const name = seats.length > 1 ? player.name : null;
  if (s.phase !== "tile") {
    return name ? t("Your turn ({name}): build. Click a highlighted hex.", { name }) : t("Your turn: build. Click a highlighted hex.");
  }
  if (!mode) {
    return name ? t("Your turn ({name}): draw a tile or take a double-hex tile.", { name }) : t("Your turn: draw a tile or take a double-hex tile.");
  }
  if (mode.kind === "double") {
    const code = mode.code;
    return name ? t("Your turn ({name}): place the double-hex tile {code}.", { name, code }) : t("Your turn: place the double-hex tile {code}.", { code });
  }
  return name ? t("Your turn ({name}): place the tile.", { name }) : t("Your turn: place the tile.");
}
