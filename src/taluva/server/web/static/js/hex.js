// Hex geometry of docs/notation.md: axial (q, r), pointy-top hexes, r growing downwards.

export const DIRECTIONS = [[1, 0], [1, -1], [0, -1], [-1, 0], [-1, 1], [0, 1]];
export const SQRT3 = Math.sqrt(3);

export const key = (q, r) => `${q},${r}`;

export function parseKey(text) {
  const [q, r] = text.split(",").map(Number);
  return [q, r];
}

export function neighbour(q, r, k) {
  const [dq, dr] = DIRECTIONS[((k % 6) + 6) % 6];
  return [q + dq, r + dr];
}

/** Centre of a hex in pixels for hex radius `size`. */
export function centre(q, r, size) {
  return [size * SQRT3 * (q + r / 2), size * 1.5 * r];
}

/** The hex under a pixel position (inverse of `centre`, with cube rounding). */
export function hexAt(x, y, size) {
  const r = y / (1.5 * size);
  const q = x / (SQRT3 * size) - r / 2;
  let rq = Math.round(q);
  let rr = Math.round(r);
  const rs = Math.round(-q - r);
  const dq = Math.abs(rq - q);
  const dr = Math.abs(rr - r);
  const ds = Math.abs(rs - (-q - r));
  if (dq > dr && dq > ds) rq = -rr - rs;
  else if (dr > ds) rr = -rq - rs;
  return [rq, rr];
}

const CORNER_ANGLES = [0, 1, 2, 3, 4, 5].map((i) => (Math.PI / 180) * (60 * i - 30));
const CORNER_COS = CORNER_ANGLES.map(Math.cos);
const CORNER_SIN = CORNER_ANGLES.map(Math.sin);

/** The six corners of a hex centred on (x, y), clockwise from the upper right. */
export function corners(x, y, size) {
  const out = [];
  for (let i = 0; i < 6; i += 1) out.push([x + size * CORNER_COS[i], y + size * CORNER_SIN[i]]);
  return out;
}

/** Corner indices (of `corners`) bounding the edge towards direction k. */
export const EDGE_CORNERS = [[0, 1], [5, 0], [4, 5], [3, 4], [2, 3], [1, 2]];

/** Hexes a regular tile covers: volcano, then terrain A at D[k], terrain B at D[k+1]. */
export function tileFootprint(q, r, k) {
  return [[q, r], neighbour(q, r, k), neighbour(q, r, k + 1)];
}

/** Hexes a double-hex tile covers: X on (q, r), Y at D[k]. */
export function doubleFootprint(q, r, k) {
  return [[q, r], neighbour(q, r, k)];
}

/** The canonical form of a double-hex placement: VV and JJ use orientations 0-2 only. */
export function canonicalDouble(code, q, r, k) {
  if ((code === "VV" || code === "JJ") && k >= 3) {
    const [nq, nr] = neighbour(q, r, k);
    return [nq, nr, k - 3];
  }
  return [q, r, k];
}

export const TERRAIN_LETTERS = "VJCSRL";
export const TERRAIN_NAMES = ["volcano", "jungle", "clearing", "sand", "rock", "lake"];

/** Terrain indices of a tile's hexes in footprint order: a regular tile's volcano first;
 * a double-hex tile (`double`) is written by both of its letters. */
export function tileTerrains(code, double = false) {
  if (double) return [...code].map((c) => TERRAIN_LETTERS.indexOf(c));
  return [0, TERRAIN_LETTERS.indexOf(code[0]), TERRAIN_LETTERS.indexOf(code[1])];
}

/** Parse canonical move text into a plain object. */
export function parseMove(text) {
  const words = text.trim().split(/\s+/);
  const kind = words[0];
  const hex = (w) => parseKey(w);
  switch (kind) {
    case "tile": return { kind, hex: hex(words[1]), k: Number(words[2]) };
    case "double": return { kind, code: words[1], hex: hex(words[2]), k: Number(words[3]) };
    case "expand": return { kind, terrain: words[1], hexes: words.slice(2).map(hex) };
    case "draw": return { kind };
    default: return { kind, hex: hex(words[1]) };
  }
}

/** The hexes a move touches (for highlighting the last turn). */
export function moveHexes(text, tileCode) {
  const m = parseMove(text);
  if (m.kind === "tile") return tileFootprint(m.hex[0], m.hex[1], m.k);
  if (m.kind === "double") return doubleFootprint(m.hex[0], m.hex[1], m.k);
  if (m.kind === "expand") return m.hexes;
  if (m.kind === "draw") return [];
  return [m.hex];
}
