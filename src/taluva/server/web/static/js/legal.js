// What the page reads from the server's list of legal moves: where each tile may go, which
// builds each hex offers, and how a build looks and reads before it is played. Pure functions:
// `level(q, r)` gives a hex's height (the board's), so that nothing here touches the page.

import { key, neighbour, parseMove } from "./hex.js";
import { t, tn } from "./i18n.js";

/** The lagoon (a list of [q, r]) that holds hex [q, r], or null. */
function lagoonOf(lagoons, [q, r]) {
  for (const lagoon of lagoons || []) {
    if (lagoon.some(([a, b]) => a === q && b === r)) return lagoon;
  }
  return null;
}

/** Index a position's legal moves: `tileSpots` maps "code|k" (code "tile" for the drawn tile)
 * to the [q, r] where it fits with orientation k; `buildsByHex` maps "q,r" to the build moves
 * that touch that hex (a ship's every hex of its lagoon). */
export function indexLegal(legal, lagoons) {
  const tileSpots = new Map();
  const buildsByHex = new Map();
  for (const text of legal || []) {
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
      if (m.kind === "ship") hexes = lagoonOf(lagoons, m.hex) || hexes;
      for (const [q, r] of hexes) {
        const k = key(q, r);
        if (!buildsByHex.has(k)) buildsByHex.set(k, []);
        buildsByHex.get(k).push(text);
      }
    }
  }
  return { tileSpots, buildsByHex };
}

/** The pieces a build would add, for the board's preview: [{hex, kind, player, count}]. */
export function previewOf(text, player, level) {
  const m = parseMove(text);
  if (m.kind === "expand") {
    return m.hexes.map(([q, r]) => ({ hex: [q, r], kind: "hut", player, count: level(q, r) }));
  }
  if (m.kind === "hut") return [{ hex: m.hex, kind: "hut", player, count: 1 }];
  if (m.kind === "temple" || m.kind === "tower" || m.kind === "ship") return [{ hex: m.hex, kind: m.kind, player, count: 1 }];
  return [];
}

/** An expansion in words, one sentence a terrain (its grammar differs by language):
 * `n` hexes, `huts` (a phrase) placed. */
const EXPAND = {
  jungle: (n, huts) => tn("Expand into jungle: {n} hex, {huts}", "Expand into jungle: {n} hexes, {huts}", n, { huts }),
  clearing: (n, huts) => tn("Expand into clearing: {n} hex, {huts}", "Expand into clearing: {n} hexes, {huts}", n, { huts }),
  sand: (n, huts) => tn("Expand into sand: {n} hex, {huts}", "Expand into sand: {n} hexes, {huts}", n, { huts }),
  rock: (n, huts) => tn("Expand into rock: {n} hex, {huts}", "Expand into rock: {n} hexes, {huts}", n, { huts }),
  lake: (n, huts) => tn("Expand into lake: {n} hex, {huts}", "Expand into lake: {n} hexes, {huts}", n, { huts }),
};

/** A build in words, for the build menu; `huts` is what the server says an expansion places
 * (the state's `expansion_huts`). */
export function describeBuild(text, huts) {
  const m = parseMove(text);
  switch (m.kind) {
    case "hut": return t("Found a settlement (1 hut)");
    case "temple": return t("Build a temple");
    case "tower": return t("Build a tower");
    case "ship": return t("Place a ship in this lagoon");
    case "expand":
      if (!EXPAND[m.terrain]) return text;
      return EXPAND[m.terrain](m.hexes.length, tn("{n} hut", "{n} huts", huts[text]));
    default: return text;
  }
}
