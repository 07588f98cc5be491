// The move log in words ("Ana erupted at 2,−1, destroying 2 huts of Ben") and each player's
// last turn, both read from a state's moves and movers alone: a small replay of levels and
// buildings is enough to know which huts an eruption buried and how many huts a build added.

import { doubleFootprint, key, parseMove, tileFootprint } from "./hex.js";

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
 * start with the mover's name.
 */
export function movesInWords(state, nameOf = (seat) => state.players?.[seat]?.name ?? `Seat ${seat + 1}`) {
  const levels = new Map();
  const buildings = new Map();
  const out = [];
  state.moves.forEach((text, ply) => {
    const seat = state.movers?.[ply];
    const who = nameOf(seat);
    let words;
    let m;
    try {
      m = parseMove(text);
    } catch {
      m = { kind: "?" };
    }
    if (m.kind === "tile" || m.kind === "double") {
      const hexes = m.kind === "tile" ? tileFootprint(m.hex[0], m.hex[1], m.k) : doubleFootprint(m.hex[0], m.hex[1], m.k);
      const below = Math.max(...hexes.map(([q, r]) => levels.get(key(q, r)) || 0));
      const lost = new Map();
      for (const [q, r] of hexes) {
        const k = key(q, r);
        const building = buildings.get(k);
        if (building) lost.set(building.seat, (lost.get(building.seat) || 0) + building.huts);
        buildings.delete(k);
        levels.set(k, (levels.get(k) || 0) + 1);
      }
      const what = m.kind === "tile" ? "a tile" : `the double-hex tile ${m.code}`;
      if (below === 0) {
        words = `${who} placed ${what} at ${hexWords(m.hex)}`;
      } else {
        const verb = m.kind === "tile" ? `erupted at ${hexWords(m.hex)}` : `laid ${what} on ${hexWords(m.hex)}`;
        words = `${who} ${verb}, raising it to level ${below + 1}`;
        if (lost.size) {
          const victims = [...lost.entries()].map(([victim, huts]) => `${plural(huts, "hut")} of ${nameOf(victim)}`);
          words += `, destroying ${listed(victims)}`;
        }
      }
    } else if (m.kind === "hut") {
      buildings.set(key(...m.hex), { seat, huts: 1 });
      words = `${who} founded a settlement at ${hexWords(m.hex)}`;
    } else if (m.kind === "expand") {
      let huts = 0;
      for (const [q, r] of m.hexes) {
        const level = levels.get(key(q, r)) || 1;
        huts += level;
        buildings.set(key(q, r), { seat, huts: level });
      }
      const count = m.hexes.length;
      words = `${who} expanded into ${m.terrain}: ${plural(huts, "hut")} on ${count} hex${count === 1 ? "" : "es"}`;
    } else if (m.kind === "temple" || m.kind === "tower") {
      buildings.set(key(...m.hex), { seat, huts: 0 });
      words = `${who} built a ${m.kind} at ${hexWords(m.hex)}`;
    } else if (m.kind === "ship") {
      words = `${who} launched a ship at ${hexWords(m.hex)}`;
    } else if (m.kind === "draw") {
      words = `${who} drew a tile`;
    } else {
      words = `${who}: ${text}`;
    }
    out.push({ ply, seat, move: text, words });
  });
  return out;
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
