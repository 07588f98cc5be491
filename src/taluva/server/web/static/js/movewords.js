// The move log in words ("Ana erupted at 2,−1, destroying 2 huts of Ben") and each player's
// last turn, read from a state's moves, movers and effects. What a move did (the level a tile
// reached, the huts a build placed, the huts an eruption destroyed) is the server's: the
// engine's facts in `state.effects` (docs/server-api.md); this file only puts them in words.

import { doubleFootprint, parseMove, tileFootprint } from "./hex.js";
import { listing, t, tn } from "./i18n.js";

/** "2,−1": a hex as people read it (a true minus sign). */
export function hexWords([q, r]) {
  return `${q},${r}`.replaceAll("-", "−");
}

/** "2 huts of Ben, 1 hut of Cleo": the huts an eruption destroys, by seat (`nameOf`). */
export function hutsDestroyed(destroyed, nameOf) {
  return listing(destroyed.map((d) => tn("{n} hut of {player}", "{n} huts of {player}", d.huts, { player: nameOf(d.seat) })));
}

/** An expansion in words, one sentence a terrain (its grammar differs by language): with
 * the huts it placed (`huts`, a phrase), or without when the server has not said. */
const EXPANDED = {
  jungle: (n, v) => (v.huts
    ? tn("{who} expanded into jungle: {huts} on {n} hex", "{who} expanded into jungle: {huts} on {n} hexes", n, v)
    : tn("{who} expanded into jungle on {n} hex", "{who} expanded into jungle on {n} hexes", n, v)),
  clearing: (n, v) => (v.huts
    ? tn("{who} expanded into clearing: {huts} on {n} hex", "{who} expanded into clearing: {huts} on {n} hexes", n, v)
    : tn("{who} expanded into clearing on {n} hex", "{who} expanded into clearing on {n} hexes", n, v)),
  sand: (n, v) => (v.huts
    ? tn("{who} expanded into sand: {huts} on {n} hex", "{who} expanded into sand: {huts} on {n} hexes", n, v)
    : tn("{who} expanded into sand on {n} hex", "{who} expanded into sand on {n} hexes", n, v)),
  rock: (n, v) => (v.huts
    ? tn("{who} expanded into rock: {huts} on {n} hex", "{who} expanded into rock: {huts} on {n} hexes", n, v)
    : tn("{who} expanded into rock on {n} hex", "{who} expanded into rock on {n} hexes", n, v)),
  lake: (n, v) => (v.huts
    ? tn("{who} expanded into lake: {huts} on {n} hex", "{who} expanded into lake: {huts} on {n} hexes", n, v)
    : tn("{who} expanded into lake on {n} hex", "{who} expanded into lake on {n} hexes", n, v)),
};

/**
 * One entry a move: {ply, seat, move, words}. `nameOf(seat)` names the players; the words
 * start with the mover's name. `state.effects[ply]` says what each move did (the state view's
 * effects, or a review plan's `best_effects`); a move whose effect is missing is said without
 * the numbers only the server knows.
 */
export function movesInWords(state, nameOf = (seat) => state.players?.[seat]?.name ?? t("Seat {n}", { n: seat + 1 })) {
  return state.moves.map((text, ply) => {
    const seat = state.movers?.[ply];
    return { ply, seat, move: text, words: moveWords(text, nameOf(seat), state.effects?.[ply], nameOf) };
  });
}

/** A tile placed: on the sea or beside the island (level 1), or over a volcano, raising the
 * hexes under it and perhaps destroying huts. */
function tileWords(m, who, effect, nameOf) {
  const hex = hexWords(m.hex);
  const { level } = effect;
  if (m.kind === "tile") {
    if (level === 1) return t("{who} placed a tile at {hex}", { who, hex });
    const victims = hutsDestroyed(effect.destroyed || [], nameOf);
    return victims
      ? t("{who} erupted at {hex}, raising it to level {level}, destroying {victims}", { who, hex, level, victims })
      : t("{who} erupted at {hex}, raising it to level {level}", { who, hex, level });
  }
  const code = m.code;
  if (level === 1) return t("{who} placed the double-hex tile {code} at {hex}", { who, code, hex });
  const victims = hutsDestroyed(effect.destroyed || [], nameOf);
  return victims
    ? t("{who} laid the double-hex tile {code} on {hex}, raising it to level {level}, destroying {victims}", { who, code, hex, level, victims })
    : t("{who} laid the double-hex tile {code} on {hex}, raising it to level {level}", { who, code, hex, level });
}

/** One move in words, the mover called `who`, from its text and its effect. */
function moveWords(text, who, effect, nameOf) {
  let m;
  try {
    m = parseMove(text);
  } catch {
    m = { kind: "?" };
  }
  if ((m.kind === "tile" || m.kind === "double") && effect?.level) return tileWords(m, who, effect, nameOf);
  const hex = m.hex ? hexWords(m.hex) : "";
  if (m.kind === "hut") return t("{who} founded a settlement at {hex}", { who, hex });
  if (m.kind === "expand" && EXPANDED[m.terrain]) {
    const huts = effect?.huts ? tn("{n} hut", "{n} huts", effect.huts) : "";
    return EXPANDED[m.terrain](m.hexes.length, { who, huts });
  }
  if (m.kind === "temple") return t("{who} built a temple at {hex}", { who, hex });
  if (m.kind === "tower") return t("{who} built a tower at {hex}", { who, hex });
  if (m.kind === "ship") return t("{who} launched a ship at {hex}", { who, hex });
  if (m.kind === "draw") return t("{who} drew a tile", { who });
  return t("{who}: {move}", { who, move: text });
}

/** The hexes a move touches. */
function touched(text) {
  const m = parseMove(text);
  if (m.kind === "tile") return tileFootprint(m.hex[0], m.hex[1], m.k);
  if (m.kind === "double") return doubleFootprint(m.hex[0], m.hex[1], m.k);
  if (m.kind === "expand") return m.hexes;
  if (m.kind === "draw" || !m.hex) return [];
  return [m.hex];
}

/** Each player's last turn: [{seat, hexes, latest}], the latest turn of the game last. */
export function lastTurns(state) {
  const turns = new Map();
  const n = state.moves.length;
  let latest = null;
  for (let i = n - 1; i >= 0; i -= 1) {
    const seat = state.movers?.[i];
    if (seat === undefined || seat === null || turns.has(seat)) continue;
    const hexes = [];
    for (let j = i; j >= 0 && state.movers[j] === seat; j -= 1) {
      try {
        hexes.push(...touched(state.moves[j]));
      } catch {
        break;
      }
      if (/^(tile|double) /.test(state.moves[j])) break;
    }
    if (latest === null) latest = seat;
    turns.set(seat, hexes);
  }
  return [...turns.entries()].reverse().map(([seat, hexes]) => ({ seat, hexes, latest: seat === latest }));
}
