// Digits and terrain letters as stroked paths. The island carries a level number and a terrain
// letter on every hex; written as SVG text, those few hundred labels took about a seventh of
// the main thread's work before a 60-tile island's first frame (bench/web_render.py), since
// each text is shaped and laid out on its own, while a path is only stroked.

/** Strokes of each character on a 4 x 6 grid (x right, y down), as polylines. */
const STROKES = {
  0: [[[1, 0], [3, 0], [4, 1], [4, 5], [3, 6], [1, 6], [0, 5], [0, 1], [1, 0]]],
  1: [[[0.8, 1.2], [2, 0], [2, 6]], [[0.8, 6], [3.2, 6]]],
  2: [[[0, 1], [1, 0], [3, 0], [4, 1], [4, 2.2], [0, 6], [4, 6]]],
  3: [[[0, 0], [4, 0], [1.8, 2.6], [3, 2.6], [4, 3.6], [4, 5], [3, 6], [1, 6], [0, 5]]],
  4: [[[3, 6], [3, 0], [0, 4], [4, 4]]],
  5: [[[4, 0], [0.3, 0], [0, 2.6], [3, 2.6], [4, 3.6], [4, 5], [3, 6], [0, 6]]],
  6: [[[3.6, 0], [1.4, 0], [0, 1.6], [0, 5], [1, 6], [3, 6], [4, 5], [4, 3.6], [3, 2.6], [0, 2.6]]],
  7: [[[0, 0], [4, 0], [1.5, 6]]],
  8: [[[2, 2.8], [1, 2.8], [0.2, 2], [0.2, 0.8], [1, 0], [3, 0], [3.8, 0.8], [3.8, 2], [3, 2.8], [1, 2.8], [0, 3.8], [0, 5], [1, 6], [3, 6], [4, 5], [4, 3.8], [3, 2.8], [2, 2.8]]],
  9: [[[0.4, 6], [2.6, 6], [4, 4.4], [4, 1], [3, 0], [1, 0], [0, 1], [0, 2.4], [1, 3.4], [4, 3.4]]],
  V: [[[0, 0], [2, 6], [4, 0]]],
  J: [[[4, 0], [4, 5], [3, 6], [1, 6], [0, 5], [0, 4]]],
  C: [[[4, 1], [3, 0], [1, 0], [0, 1], [0, 5], [1, 6], [3, 6], [4, 5]]],
  S: [[[4, 1], [3, 0], [1, 0], [0, 1], [0, 2], [1, 3], [3, 3], [4, 4], [4, 5], [3, 6], [1, 6], [0, 5]]],
  R: [[[0, 6], [0, 0], [3, 0], [4, 1], [4, 2], [3, 3], [0, 3]], [[2, 3], [4, 6]]],
  L: [[[0, 0], [0, 6], [4, 6]]],
};

/** Width of a character and the space after it, in grid units. */
const ADVANCE = 5.5;

const tails = new Map();

/** The strokes of `text` at `unit` pixels a grid unit, relative to its first point: the same
 * wherever the text is written, so made once for each text and size (a level number and a
 * terrain letter on every hex of the island would otherwise be formatted again each time). */
function relativeStrokes(text, unit) {
  const name = `${text}|${unit}`;
  let out = tails.get(name);
  if (out) return out;
  let first = null;
  let at = null;
  let d = "";
  let left = 0;
  for (const character of text) {
    for (const line of STROKES[character] || []) {
      line.forEach(([gx, gy], i) => {
        const point = [Math.round((left + gx) * unit * 10) / 10, Math.round(gy * unit * 10) / 10];
        if (!first) first = point;
        else d += `${i ? "l" : "m"}${+(point[0] - at[0]).toFixed(1)},${+(point[1] - at[1]).toFixed(1)}`;
        at = point;
      });
    }
    left += ADVANCE;
  }
  out = { first, d }; // first is null when no character has strokes
  tails.set(name, out);
  return out;
}

/** How wide `text` is written at `unit` pixels a grid unit (its last character without the
 * space after it). */
export function glyphWidth(text, unit) {
  return (String(text).length * ADVANCE - (ADVANCE - 4)) * unit;
}

/**
 * Path data that writes `text` centred on (x, y), each grid unit `unit` pixels: for a path
 * with a stroke and round caps and joins (the grid is 6 units high). A character without
 * strokes is left as a gap.
 */
export function glyphPath(text, x, y, unit) {
  const characters = String(text);
  const width = glyphWidth(characters, unit);
  const { first, d } = relativeStrokes(characters, unit);
  if (!first) return "";
  return `M${(x - width / 2 + first[0]).toFixed(1)},${(y - 3 * unit + first[1]).toFixed(1)}${d}`;
}
