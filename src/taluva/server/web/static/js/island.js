// Drawing the island in the oblique projection: each hex a prism whose visible sides show one
// stratum per tile beneath it, a top face with its terrain's colour and pattern, and from
// level 2 rings and a number for its level (readable without colour), volcanoes as cones;
// the sea grid, lagoons and the board zone at sea level. Colours and the level rule come
// from taluva.render.

import { DIRECTIONS, EDGE_CORNERS, TERRAIN_LETTERS, TERRAIN_NAMES, centre, corners, key } from "./hex.js";
import { LEVEL_HEIGHT, SIZE, TILT, worldStep } from "./projection.js";
import { glyphPath, glyphWidth } from "./glyphs.js";
import { contrastText, el, f, points, shade } from "./pieces.js";

export const DEFAULT_STYLE = {
  terrains: {
    volcano: "#b3472f", jungle: "#2e7d32", clearing: "#9ccc65", sand: "#e6c36a",
    rock: "#98a0a8", lake: "#4aa3df",
  },
  players: ["#e53935", "#f5f5f5", "#8e24aa", "#fb8c00", "#212121"],
  player_names: ["red", "white", "purple", "orange", "black"],
  sea: "#183a5a", lagoon: "#1f6d68", outside_zone: "#0d1f30", zone_line: "#e0f2ff",
  tile_edge: "#1a1a1a", hex_edge_shade: -0.22, last_move: "#ffd600", cursor: "#00e5ff",
  illegal: "#ff1744", level_lightness: [-0.3, -0.1, 0.14, 0.34, 0.5],
};

/** The level badge's measures in SVG units: a glyph grid unit, the hexagon's half height,
 * how far its side corners sit in from its tips, the room between the digits and those
 * corners, and how far below it the tile under it shows. */
const LEVEL_BADGE = { unit: 1.35, rise: 5.6, lean: 4.2, margin: 1.6, layer: 3 };

/** Earth colours of the strata under a hex's top tile, alternating so stacks can be counted. */
const STRATA = ["#7a6450", "#5e4a3a"];

const sidesSeen = new WeakMap();

/** The visible sides of a hex: edge index k of `EDGE_CORNERS` and how much light it gets
 * (the same for every hex of a projection: worked out once for each). */
function visibleSides(projection) {
  let out = sidesSeen.get(projection);
  if (out) return out;
  out = [];
  for (let k = 0; k < 6; k += 1) {
    const [dq, dr] = DIRECTIONS[k];
    const [wx, wy] = worldStep(dq, dr);
    const [sx, sy] = projection.direction(wx / (SIZE * Math.sqrt(3)), wy / (SIZE * Math.sqrt(3)));
    if (sy > 0.05) out.push({ k, dq, dr, light: -0.18 - 0.22 * sx });
  }
  sidesSeen.set(projection, out);
  return out;
}

const offsetsSeen = new WeakMap();

/** A face's corners less its centre, projected: the same for every hex of a projection (the
 * projection is linear), so worked out once for each projection and scale. */
function cornerOffsets(projection, scale) {
  let byScale = offsetsSeen.get(projection);
  if (!byScale) offsetsSeen.set(projection, (byScale = new Map()));
  let out = byScale.get(scale);
  if (!out) {
    out = corners(0, 0, SIZE * scale).map(([cx, cy]) => projection.point(cx, cy, 0));
    byScale.set(scale, out);
  }
  return out;
}

export class IslandArt {
  constructor(defs, style) {
    this.defs = defs;
    this.style = { ...DEFAULT_STYLE, ...(style || {}) };
    this.patterns = new Set();
    // Set by a page with several boards (the rules' pictures), so that each keeps its own ids.
    this.idPrefix = "";
  }

  terrainFill(terrain, level) {
    const name = TERRAIN_NAMES[terrain];
    const base = this.style.terrains[name] || "#888888";
    const steps = this.style.level_lightness;
    const step = steps[Math.max(1, Math.min(level, steps.length)) - 1];
    return shade(base, step);
  }

  /** A fill for a terrain at a level: its colour under its greyscale pattern (made once). */
  topFill(terrain, level) {
    const name = TERRAIN_NAMES[terrain] || "rock";
    const band = Math.max(1, Math.min(level, this.style.level_lightness.length));
    const id = `${this.idPrefix}top-${name}-${band}`;
    if (!this.patterns.has(id)) {
      this.patterns.add(id);
      this.makePattern(id, name, this.terrainFill(terrain, band));
    }
    return `url(#${id})`;
  }

  makePattern(id, name, fill) {
    const ink = "rgba(0,0,0,0.32)";
    const light = "rgba(255,255,255,0.45)";
    const sizes = { volcano: [10, 10], jungle: [9, 9], clearing: [8, 6], sand: [5, 5], rock: [7, 7], lake: [12, 6] };
    const [w, h] = sizes[name] || [8, 8];
    const p = el("pattern", { id, width: w, height: h, patternUnits: "userSpaceOnUse" }, this.defs);
    el("rect", { width: w, height: h, fill }, p);
    if (name === "volcano") el("path", { d: "M0 10 L5 0 L10 10", fill: "none", stroke: ink, "stroke-width": 1.2 }, p);
    if (name === "jungle") {
      el("circle", { cx: 2.5, cy: 2.5, r: 1.8, fill: ink }, p);
      el("circle", { cx: 7, cy: 7, r: 1.8, fill: ink }, p);
    }
    if (name === "clearing") el("path", { d: "M1 5 L2 1 M4 5 L4 1 M7 5 L6 1", stroke: ink, "stroke-width": 0.8 }, p);
    if (name === "sand") {
      el("circle", { cx: 1.2, cy: 1.2, r: 0.6, fill: ink }, p);
      el("circle", { cx: 3.7, cy: 3.7, r: 0.6, fill: ink }, p);
    }
    if (name === "rock") el("path", { d: "M0 0 L7 7 M7 0 L0 7", stroke: ink, "stroke-width": 0.9 }, p);
    if (name === "lake") el("path", { d: "M0 3 Q3 0 6 3 T12 3", fill: "none", stroke: light, "stroke-width": 1.1 }, p);
  }

  /** How far a face's corners reach from its centre in a projection: [left, top, right,
   * bottom] (negative for left and top), for screen boxes of many hexes at once. */
  faceReach(projection) {
    const offsets = cornerOffsets(projection, 1);
    const xs = offsets.map(([x]) => x);
    const ys = offsets.map(([, y]) => y);
    return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
  }

  /** The six corners of hex (q, r)'s face at `level`, projected, in hex.js's corner order. */
  face(projection, q, r, level, scale = 1) {
    const [x, y] = centre(q, r, SIZE);
    const [px, py] = projection.point(x, y, level);
    return cornerOffsets(projection, scale).map(([ox, oy]) => [px + ox, py + oy]);
  }

  /**
   * One hex as a prism: sides down to whatever stands in front (`levelOf`), one stratum per
   * tile; the top face with edges (thick where the tile ends: `tileOf`), rings and number
   * when raised.
   */
  prism(parent, projection, hex, levelOf, tileOf, { ghost = false } = {}) {
    const { q, r, level, terrain, tile } = hex;
    const top = this.face(projection, q, r, level);
    const fill = this.terrainFill(terrain, level);
    const g = el("g", ghost ? { class: "ghost-hex" } : { class: "hex", "data-hex": key(q, r), "data-level": level, "data-terrain": TERRAIN_NAMES[terrain] }, parent);
    const sides = visibleSides(projection);
    for (const side of sides) {
      const floor = ghost ? level - 1 : Math.min(level, levelOf(q + side.dq, r + side.dr));
      if (floor >= level) continue;
      const [a, b] = EDGE_CORNERS[side.k];
      for (let z = level; z > floor; z -= 1) {
        const base = z === level ? shade(fill, -0.25) : STRATA[z % 2];
        const wall = [top[a], top[b]].map(([x, y]) => [x, y + (level - z) * LEVEL_HEIGHT]);
        const low = wall.map(([x, y]) => [x, y + LEVEL_HEIGHT]).reverse();
        el("polygon", { points: points([...wall, ...low]), fill: shade(base, side.light), class: "wall" }, g);
      }
    }
    // The face's outline in a darker shade of its terrain is the seam between the hexes of one
    // tile; where the tile ends, the thick edge drawn next covers it.
    el("polygon", { points: points(top), fill: this.topFill(terrain, level), stroke: ghost ? null : shade(fill, this.style.hex_edge_shade), class: "top" }, g);
    if (ghost) return g;
    let thick = "";
    for (let k = 0; k < 6; k += 1) {
      const [dq, dr] = DIRECTIONS[k];
      const boundary = tileOf(q + dq, r + dr) !== tile || levelOf(q + dq, r + dr) !== level;
      if (!boundary) continue;
      const [a, b] = EDGE_CORNERS[k];
      thick += `M${top[a][0].toFixed(1)},${top[a][1].toFixed(1)}L${top[b][0].toFixed(1)},${top[b][1].toFixed(1)}`;
    }
    if (thick) el("path", { d: thick, stroke: this.style.tile_edge, class: "edge" }, g);
    if (level >= 2) {
      const rings = [];
      for (let i = 2; i <= level; i += 1) rings.push("M" + points(this.face(projection, q, r, level, 1 - 0.12 * (i - 1))).replaceAll(" ", "L") + "Z");
      el("path", { d: rings.join(""), class: "rings" }, g);
    }
    const [x, y] = projection.hexTop(q, r, level);
    if (terrain === 0) this.volcano(g, x, y, fill);
    // Raised hexes carry their level in a badge; level 1, the ground, is left bare, so the
    // heights stand out (and a 60-tile island has a few hundred fewer elements to draw).
    if (level >= 2) this.levelBadge(g, x, y - SIZE * TILT * 0.6, level);
    const letter = glyphPath(TERRAIN_LETTERS[terrain], x - SIZE * 0.58, y + 0.5, 1.05);
    el("path", { d: letter, class: "letter", stroke: contrastText(fill) }, g);
    return g;
  }

  /**
   * A hex's level centred on (x, y): white strokes on a dark hexagon lying on the edge of a
   * second one, a small stack of tiles. Its shape, not only its colour, sets it apart from a
   * settlement's hut count (a disc, pieces.js), which is as small at a phone's zoom.
   */
  levelBadge(parent, x, y, level) {
    const digits = String(level);
    const { unit, rise, lean, margin, layer } = LEVEL_BADGE;
    const half = glyphWidth(digits, unit) / 2 + margin + lean;
    const hexagon = (dy) => points([
      [x - half, y + dy], [x - half + lean, y - rise + dy], [x + half - lean, y - rise + dy],
      [x + half, y + dy], [x + half - lean, y + rise + dy], [x - half + lean, y + rise + dy],
    ]);
    el("polygon", { points: hexagon(layer), class: "badge-layer" }, parent);
    el("polygon", { points: hexagon(0), class: "badge" }, parent);
    el("path", { d: glyphPath(digits, x, y, unit), class: "level" }, parent);
  }

  /** A cone with a glowing crater: a volcano reads as one in any colour scheme. */
  volcano(parent, x, y, fill) {
    const rb = SIZE * 0.46;
    const rt = SIZE * 0.16;
    const hc = 11;
    const cy = y + 3;
    el("path", {
      d: f`M${x - rb},${cy} L${x - rt},${cy - hc} A${rt},${rt * TILT} 0 0 1 ${x + rt},${cy - hc} L${x + rb},${cy} A${rb},${rb * TILT} 0 0 1 ${x - rb},${cy} Z`,
      fill: shade(fill, -0.3), class: "cone",
    }, parent);
    el("path", { d: f`M${x - rt * 0.4},${cy - hc + 1} L${x - rb * 0.35},${cy - 1}`, class: "lava" }, parent);
    el("ellipse", { cx: x, cy: cy - hc, rx: rt, ry: rt * TILT, class: "crater" }, parent);
  }

  /** Sea-level hex outlines around the island, so players can count the spots. */
  seaGrid(parent, projection, hexes, isLand) {
    // Hexes are numbered (q + 4096) * 8192 + r + 4096 here: the island's few thousand
    // neighbours are checked without making a string for each.
    const seen = new Set();
    const sea = [];
    const seeds = hexes.length ? hexes : [[0, 0]];
    const reach = hexes.length ? 2 : 3;
    for (const [q0, r0] of seeds) {
      for (let dq = -reach; dq <= reach; dq += 1) {
        for (let dr = Math.max(-reach, -dq - reach); dr <= Math.min(reach, -dq + reach); dr += 1) {
          const q = q0 + dq;
          const r = r0 + dr;
          const number = (q + 4096) * 8192 + r + 4096;
          if (seen.has(number)) continue;
          seen.add(number);
          if (!isLand(q, r)) sea.push([q, r]);
        }
      }
    }
    // Every ring has the same shape: its first corner, then the same relative steps.
    const offsets = cornerOffsets(projection, 1).map(([x, y]) => [Math.round(x * 10) / 10, Math.round(y * 10) / 10]);
    let steps = "";
    for (let i = 1; i < 6; i += 1) steps += `l${+(offsets[i][0] - offsets[i - 1][0]).toFixed(1)},${+(offsets[i][1] - offsets[i - 1][1]).toFixed(1)}`;
    steps += "z";
    const d = [];
    for (const [q, r] of sea) {
      const [x, y] = projection.hexTop(q, r, 0);
      d.push(`M${(x + offsets[0][0]).toFixed(1)},${(y + offsets[0][1]).toFixed(1)}${steps}`);
    }
    el("path", { d: d.join(""), fill: "none", stroke: "rgba(255,255,255,0.12)", "stroke-width": 1, class: "sea-grid" }, parent);
  }

  /** Lagoons (sea the island encloses, Ships expansion): teal water with a bright shore line. */
  lagoons(parent, projection, lagoons) {
    for (const lagoon of lagoons || []) {
      const g = el("g", { class: "lagoon" }, parent);
      for (const [q, r] of lagoon) {
        const face = this.face(projection, q, r, 0);
        el("polygon", { points: points(face), fill: this.style.lagoon, stroke: "#8fe0d6", "stroke-width": 1.2, "stroke-dasharray": "4 3", "data-hex": key(q, r) }, g);
        const [x, y] = projection.hexTop(q, r, 0);
        el("path", { d: f`M${x - 9},${y + 4} q4.5,-4 9,0 t9,0`, fill: "none", stroke: "rgba(255,255,255,0.55)", "stroke-width": 1.2 }, g);
      }
    }
  }

  /** The zone outline projected at sea level (world units of the hex size). */
  zoneOutline(projection, polygon) {
    return polygon.map(([x, y]) => projection.point(x * SIZE, y * SIZE, 0));
  }

  /** Darkened sea outside the zone (under the island). */
  zoneShade(parent, outline) {
    const outer = "M-20000,-20000 H20000 V20000 H-20000 Z";
    const inner = "M" + points(outline).replaceAll(" ", "L") + "Z";
    el("path", { d: `${outer} ${inner}`, "fill-rule": "evenodd", fill: this.style.outside_zone, opacity: 0.8, class: "outside-zone" }, parent);
  }

  /** The zone border, drawn above the island with a dark halo so it shows on any ground. */
  zoneBorder(parent, outline) {
    const d = "M" + points(outline).replaceAll(" ", "L") + "Z";
    el("path", { d, fill: "none", stroke: "rgba(0,0,0,0.6)", "stroke-width": 4.5, "stroke-linejoin": "round" }, parent);
    el("path", { d, fill: "none", stroke: this.style.zone_line, "stroke-width": 2, "stroke-dasharray": "9 5", "stroke-linejoin": "round", class: "zone-line" }, parent);
  }
}
