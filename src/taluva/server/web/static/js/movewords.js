// The move log in words ("Ana erupted at 2,−1, destroying 2 huts of Ben") and each player's
// last turn, read from a state's moves, movers and effects. What a move did (the level a tile
// reached, the huts a build placed, the huts an eruption destroyed) is the server's: the
// engine's facts in `state.effects` (docs/server-api.md); this file only puts them in words.

import { doubleFootprint, parseMove, tileFootprint } from "./hex.js";

/** "2,−1": a hex as people read it (a true minus sign). */
export function hexWords([q, r]) {
  return `${q},${r}`.replaceAll("-", "−");
}

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

function listed(parts) {
  if (parts.length <= 1) return parts.join("");
  return `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`;
}

/**
 * One entry a move: {ply, seat, move, words}. `nameOf(seat)` names the players; the words
 * start with the mover's name. `state.effects[ply]` says what each move did (the state view's
 * effects, or a review plan's `best_effects`); a move whose effect is missing is said without
 * the numbers only the server knows.
 */
export function movesInWords(state, nameOf = (seat) => state.players?.[seat]?.name ?? `Seat ${seat + 1}`) {
  return state.moves.map((text, ply) => {
    const seat = state.movers?.[ply];
    return { ply, seat, move: text, words: moveWords(text, nameOf(seat), state.effects?.[ply], nameOf) };
  });
}

/** One move in words, the mover called `who`, from its text and its effect. */
function moveWords(text, who, effect, nameOf) {
  let m;
  try {
    m = parseMove(text);
  } catch {
    m = { kind: "?" };
  }
  if ((m.kind === "tile" || m.kind === "double") && effect?.level) {
    const what = m.kind === "tile" ? "a tile" : `the double-hex tile ${m.code}`;
    if (effect.level === 1) return `${who} placed ${what} at ${hexWords(m.hex)}`;
    const verb = m.kind === "tile" ? `erupted at ${hexWords(m.hex)}` : `laid ${what} on ${hexWords(m.hex)}`;
    const victims = (effect.destroyed || []).map((d) => `${plural(d.huts, "hut")} of ${nameOf(d.seat)}`);
    return `${who} ${verb}, raising it to level ${effect.level}${victims.length ? `, destroying ${listed(victims)}` : ""}`;
  }
  if (m.kind === "hut") return `${who} founded a settlement at ${hexWords(m.hex)}`;
  if (m.kind === "expand") {
    const count = m.hexes.length;
    const hexes = `${count} hex${count === 1 ? "" : "es"}`;
    return effect?.huts
      ? `${who} expanded into ${m.terrain}: ${plural(effect.huts, "hut")} on ${hexes}`
      : `${who} expanded into ${m.terrain} on ${hexes}`;
  }
  if (m.kind === "temple" || m.kind === "tower") return `${who} built a ${m.kind} at ${hexWords(m.hex)}`;
  if (m.kind === "ship") return `${who} launched a ship at ${hexWords(m.hex)}`;
  if (m.kind === "draw") return `${who} drew a tile`;
  return `${who}: ${text}`;
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
