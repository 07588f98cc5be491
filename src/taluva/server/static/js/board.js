// The island as SVG: raised levels (extruded sides, shading, rings and numbers), tile
// outlines, terrains readable in greyscale (patterns and letters), buildings, ships, the
// board zone; plus overlays for the tile ghost, legal spots, previews and highlights.
// Colours and the level rule come from taluva.render (GET /api/config -> style).

import {
  DIRECTIONS, EDGE_CORNERS, TERRAIN_LETTERS, TERRAIN_NAMES, centre, corners, hexAt, key,
} from "./hex.js";

const NS = "http://www.w3.org/2000/svg";
export const SIZE = 30;
const LIFT = 8;

const DEFAULT_STYLE = {
  terrains: {
    volcano: "#b3472f", jungle: "#2e7d32", clearing: "#9ccc65", sand: "#e6c36a",
    rock: "#98a0a8", lake: "#4aa3df",
  },
  players: ["#e53935", "#f5f5f5", "#8e24aa", "#fb8c00", "#212121"],
  player_names: ["red", "white", "purple", "orange", "black"],
  sea: "#183a5a", lagoon: "#2f7fb0", outside_zone: "#0d1f30", zone_line: "#e0f2ff",
  tile_edge: "#1a1a1a", hex_edge_shade: -0.22, last_move: "#ffd600", cursor: "#00e5ff",
  illegal: "#ff1744", level_lightness: [-0.3, -0.1, 0.14, 0.34, 0.5],
};

export function el(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null) node.setAttribute(name, String(value));
  }
  if (parent) parent.appendChild(node);
  return node;
}

function parseColour(colour) {
  const t = colour.replace("#", "");
  return [0, 2, 4].map((i) => parseInt(t.slice(i, i + 2), 16));
}

function formatColour(rgb) {
  return "#" + rgb.map((c) => Math.max(0, Math.min(255, Math.round(c))).toString(16).padStart(2, "0")).join("");
}

export function shade(colour, amount) {
  const target = amount >= 0 ? 255 : 0;
  const a = Math.abs(amount);
  return formatColour(parseColour(colour).map((c) => c + (target - c) * a));
}

export function contrastText(colour) {
  const [r, g, b] = parseColour(colour);
  return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? "#000000" : "#ffffff";
}

const points = (list) => list.map(([x, y]) => `${x.toFixed(2)},${y.toFixed(2)}`).join(" ");

export class Board {
  constructor(container, style, callbacks = {}) {
    this.style = { ...DEFAULT_STYLE, ...(style || {}) };
    this.callbacks = callbacks;
    this.state = null;
    this.levels = new Map();
    this.maxLevel = 0;
    this.view = null;
    this.pointers = new Map();
    this.svg = el("svg", {
      class: "board",
      role: "application",
      tabindex: "0",
      "aria-label": "Island. Arrow keys move the cursor, R rotates, Enter acts.",
      preserveAspectRatio: "xMidYMid meet",
    });
    container.appendChild(this.svg);
    this.defs = el("defs", {}, this.svg);
    this.makePatterns();
    this.background = el("rect", { x: -5000, y: -5000, width: 10000, height: 10000, fill: this.style.sea }, this.svg);
    this.zoneLayer = el("g", { class: "zone" }, this.svg);
    this.islandLayer = el("g", { class: "island" }, this.svg);
    this.markLayer = el("g", { class: "marks", "pointer-events": "none" }, this.svg);
    this.ghostLayer = el("g", { class: "ghost", "pointer-events": "none" }, this.svg);
    this.cursorLayer = el("g", { class: "cursor", "pointer-events": "none" }, this.svg);
    this.bindPointer();
    new ResizeObserver(() => this.applyView()).observe(this.svg);
  }

  // ------------------------------------------------------------------ patterns

  makePatterns() {
    const ink = "rgba(0,0,0,0.34)";
    const light = "rgba(255,255,255,0.45)";
    const pattern = (name, w, h, draw) => {
      const p = el("pattern", { id: `pat-${name}`, width: w, height: h, patternUnits: "userSpaceOnUse" }, this.defs);
      draw(p);
    };
    pattern("volcano", 10, 10, (p) => {
      el("path", { d: "M0 10 L5 0 L10 10", fill: "none", stroke: ink, "stroke-width": 1.2 }, p);
    });
    pattern("jungle", 9, 9, (p) => {
      el("circle", { cx: 2.5, cy: 2.5, r: 1.8, fill: ink }, p);
      el("circle", { cx: 7, cy: 7, r: 1.8, fill: ink }, p);
    });
    pattern("clearing", 8, 6, (p) => {
      el("path", { d: "M1 5 L2 1 M4 5 L4 1 M7 5 L6 1", stroke: ink, "stroke-width": 0.8 }, p);
    });
    pattern("sand", 5, 5, (p) => {
      el("circle", { cx: 1.2, cy: 1.2, r: 0.6, fill: ink }, p);
      el("circle", { cx: 3.7, cy: 3.7, r: 0.6, fill: ink }, p);
    });
    pattern("rock", 7, 7, (p) => {
      el("path", { d: "M0 0 L7 7 M7 0 L0 7", stroke: ink, "stroke-width": 0.9 }, p);
    });
    pattern("lake", 12, 6, (p) => {
      el("path", { d: "M0 3 Q3 0 6 3 T12 3", fill: "none", stroke: light, "stroke-width": 1.1 }, p);
    });
  }

  // ------------------------------------------------------------------ colours

  terrainFill(terrain, level) {
    const name = TERRAIN_NAMES[terrain];
    const base = this.style.terrains[name] || "#888888";
    const steps = this.style.level_lightness;
    const step = steps[Math.max(1, Math.min(level, steps.length)) - 1];
    return shade(base, step);
  }

  playerColour(player) {
    const list = this.style.players;
    return list[player % list.length];
  }

  // ------------------------------------------------------------------ drawing the island

  top(q, r, level) {
    const [x, y] = centre(q, r, SIZE);
    return [x, y - level * LIFT];
  }

  setState(state) {
    const first = this.state === null;
    this.state = state;
    this.levels = new Map();
    this.tiles = new Map();
    this.maxLevel = 0;
    for (const [q, r, level, , tile] of state.hexes) {
      this.levels.set(key(q, r), level);
      this.tiles.set(key(q, r), tile);
      this.maxLevel = Math.max(this.maxLevel, level);
    }
    this.drawZone();
    this.drawIsland();
    if (first || !this.view || !this.islandInView()) this.fit();
  }

  level(q, r) {
    return this.levels.get(key(q, r)) || 0;
  }

  drawZone() {
    this.zoneLayer.replaceChildren();
    const zone = this.state.zone;
    if (!zone || !zone.polygon || !zone.polygon.length) return;
    const poly = zone.polygon.map(([x, y]) => [x * SIZE, y * SIZE]);
    const outer = "M-5000,-5000 H5000 V5000 H-5000 Z";
    const inner = "M" + poly.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" L") + " Z";
    el("path", { d: `${outer} ${inner}`, "fill-rule": "evenodd", fill: this.style.outside_zone, opacity: 0.75 }, this.zoneLayer);
    el("path", { d: inner, fill: "none", stroke: this.style.zone_line, "stroke-width": 2, "stroke-dasharray": "8 5" }, this.zoneLayer);
  }

  drawIsland() {
    const layer = this.islandLayer;
    layer.replaceChildren();
    const state = this.state;
    const buildings = new Map(state.buildings.map(([q, r, player, kind, level]) => [key(q, r), { player, kind, level }]));
    const ships = new Map(state.ships.map(([q, r, player]) => [key(q, r), player]));
    this.drawSeaGrid(layer);
    for (const lagoon of state.lagoons) {
      for (const [q, r] of lagoon) {
        const [x, y] = centre(q, r, SIZE);
        el("polygon", {
          points: points(corners(x, y, SIZE)), fill: this.style.lagoon,
          stroke: shade(this.style.lagoon, -0.2), "stroke-width": 0.8, class: "lagoon", "data-hex": key(q, r),
        }, layer);
      }
    }
    for (const [k, player] of ships) {
      const [q, r] = k.split(",").map(Number);
      const [x, y] = centre(q, r, SIZE);
      this.drawShip(layer, x, y, player, 1);
    }
    const hexes = [...state.hexes].sort((a, b) => (a[1] - b[1]) || (a[0] - b[0]));
    for (const [q, r, level, terrain, tile] of hexes) {
      this.drawHex(layer, q, r, level, terrain, tile, buildings.get(key(q, r)));
    }
  }

  /** Faint outlines of the sea hexes around the island, so players can count spots. */
  drawSeaGrid(layer) {
    const sea = new Set();
    const seeds = this.state.hexes.length ? this.state.hexes.map(([q, r]) => [q, r]) : [[0, 0]];
    const reach = this.state.hexes.length ? 2 : 3;
    for (const [q0, r0] of seeds) {
      for (let dq = -reach; dq <= reach; dq += 1) {
        for (let dr = Math.max(-reach, -dq - reach); dr <= Math.min(reach, -dq + reach); dr += 1) {
          const k = key(q0 + dq, r0 + dr);
          if (!this.levels.has(k)) sea.add(k);
        }
      }
    }
    const path = [];
    for (const k of sea) {
      const [q, r] = k.split(",").map(Number);
      const [x, y] = centre(q, r, SIZE);
      const c = corners(x, y, SIZE);
      path.push("M" + c.map(([a, b]) => `${a.toFixed(1)},${b.toFixed(1)}`).join(" L") + " Z");
    }
    el("path", { d: path.join(" "), fill: "none", stroke: "rgba(255,255,255,0.10)", "stroke-width": 1, class: "sea-grid" }, layer);
  }

  drawHex(layer, q, r, level, terrain, tile, building) {
    const [x, y] = this.top(q, r, level);
    const fill = this.terrainFill(terrain, level);
    const name = TERRAIN_NAMES[terrain];
    const g = el("g", { class: "hex", "data-hex": key(q, r), "data-level": level, "data-terrain": name }, layer);
    const topCorners = corners(x, y, SIZE);
    if (level > 0) {
      // The cliff: the three lower edges pushed down to the sea, one stratum per tile.
      const low = [topCorners[0], topCorners[1], topCorners[2]];
      const base = low.map(([cx, cy]) => [cx, cy + level * LIFT]).reverse();
      el("polygon", { points: points([...low, ...base]), fill: shade(fill, -0.45), stroke: this.style.tile_edge, "stroke-width": 1 }, g);
      for (let i = 1; i < level; i += 1) {
        el("polyline", { points: points(low.map(([cx, cy]) => [cx, cy + i * LIFT])), fill: "none", stroke: "rgba(0,0,0,0.55)", "stroke-width": 0.8 }, g);
      }
    }
    el("polygon", { points: points(topCorners), fill }, g);
    el("polygon", { points: points(topCorners), fill: `url(#pat-${name})` }, g);
    for (let i = 2; i <= level; i += 1) {
      const ring = corners(x, y, SIZE * (1 - 0.13 * (i - 1)));
      el("polygon", { points: points(ring), fill: "none", stroke: "rgba(0,0,0,0.35)", "stroke-width": 0.9 }, g);
    }
    // Edges: thick where the tile ends (another tile, another level, or the sea).
    for (let k = 0; k < 6; k += 1) {
      const [dq, dr] = DIRECTIONS[k];
      const nk = key(q + dq, r + dr);
      const boundary = this.tiles.get(nk) !== tile || (this.levels.get(nk) || 0) !== level;
      const [a, b] = EDGE_CORNERS[k];
      el("line", {
        x1: topCorners[a][0], y1: topCorners[a][1], x2: topCorners[b][0], y2: topCorners[b][1],
        stroke: boundary ? this.style.tile_edge : shade(fill, this.style.hex_edge_shade),
        "stroke-width": boundary ? 2.4 : 1, "stroke-linecap": "round",
      }, g);
    }
    if (terrain === 0) {
      el("circle", { cx: x, cy: y + 2, r: SIZE * 0.32, fill: shade(fill, -0.5), stroke: "#ffb199", "stroke-width": 1.2 }, g);
    }
    const ink = contrastText(fill);
    const label = el("text", { x: x, y: y - SIZE * 0.5, class: "level", fill: ink, "text-anchor": "middle", "dominant-baseline": "middle" }, g);
    label.textContent = String(level);
    const letter = el("text", { x: x - SIZE * 0.5, y: y + SIZE * 0.42, class: "letter", fill: ink, "text-anchor": "middle", "dominant-baseline": "middle" }, g);
    letter.textContent = TERRAIN_LETTERS[terrain];
    if (building) this.drawBuilding(g, x, y, building.player, building.kind, building.level, 1);
  }

  drawBuilding(parent, x, y, player, kind, count, opacity) {
    const colour = this.playerColour(player);
    const stroke = contrastText(colour) === "#ffffff" && player === 4 ? "#eeeeee" : "#111111";
    const g = el("g", { class: `piece ${kind}`, "data-player": player, opacity }, parent);
    const u = SIZE * 0.22;
    const attrs = { fill: colour, stroke, "stroke-width": 1.3, "stroke-linejoin": "round" };
    if (kind === "hut") {
      const n = Math.max(1, count || 1);
      const spots = hutSpots(Math.min(n, 6));
      const scale = n > 3 ? 0.75 : 1;
      for (const [ox, oy] of spots) {
        const cx = x + ox * SIZE;
        const cy = y + oy * SIZE + 3;
        const s = u * scale;
        el("path", { d: `M${cx - s},${cy + s * 0.7} V${cy - s * 0.4} L${cx},${cy - s * 1.4} L${cx + s},${cy - s * 0.4} V${cy + s * 0.7} Z`, ...attrs }, g);
        this.playerMark(g, player, cx, cy, s);
      }
    } else if (kind === "temple") {
      const cy = y + 4;
      el("path", { d: `M${x - 1.9 * u},${cy + u} V${cy - 0.4 * u} L${x},${cy - 1.9 * u} L${x + 1.9 * u},${cy - 0.4 * u} V${cy + u} Z`, ...attrs }, g);
      el("path", { d: `M${x - u},${cy + u} V${cy} M${x},${cy + u} V${cy} M${x + u},${cy + u} V${cy}`, stroke, "stroke-width": 1.1 }, g);
      this.playerMark(g, player, x, cy - 0.7 * u, u);
    } else if (kind === "tower") {
      const cy = y + 6;
      const w = 0.95 * u;
      const t = cy - 3 * u;
      el("path", {
        d: `M${x - w},${cy + 0.6 * u} V${t} h${w * 0.55} v${u * 0.5} h${w * 0.35} v${-u * 0.5} h${w * 0.2} h${w * 0.2} v${u * 0.5} h${w * 0.35} v${-u * 0.5} h${w * 0.35} V${cy + 0.6 * u} Z`,
        ...attrs,
      }, g);
      this.playerMark(g, player, x, cy - 1.2 * u, u);
    }
    return g;
  }

  /** A small sign inside a piece so that seats stay apart in greyscale: none for the first
   * two (red and white differ in lightness), a dot, a bar, a ring for the others. */
  playerMark(parent, player, x, y, s) {
    const ink = contrastText(this.playerColour(player));
    if (player === 2) el("circle", { cx: x, cy: y, r: s * 0.32, fill: ink }, parent);
    if (player === 3) el("rect", { x: x - s * 0.55, y: y - s * 0.14, width: s * 1.1, height: s * 0.28, fill: ink }, parent);
    if (player === 4) el("circle", { cx: x, cy: y, r: s * 0.36, fill: "none", stroke: ink, "stroke-width": 1 }, parent);
  }

  drawShip(parent, x, y, player, opacity) {
    const colour = this.playerColour(player);
    const g = el("g", { class: "piece ship", "data-player": player, opacity }, parent);
    const u = SIZE * 0.22;
    el("path", { d: `M${x - 2 * u},${y} H${x + 2 * u} L${x + 1.3 * u},${y + u} H${x - 1.3 * u} Z`, fill: colour, stroke: "#111", "stroke-width": 1.2 }, g);
    el("path", { d: `M${x},${y - 0.2 * u} V${y - 2.2 * u} L${x + 1.4 * u},${y - 0.4 * u} Z`, fill: "#fafafa", stroke: "#111", "stroke-width": 1 }, g);
    return g;
  }

  // ------------------------------------------------------------------ overlays

  /** Outline hexes (at their top faces) in a colour: highlights, the last turn, the cursor. */
  outline(layer, hexes, colour, width = 3, dash = null, fill = "none") {
    for (const [q, r] of hexes) {
      const [x, y] = this.top(q, r, this.level(q, r));
      el("polygon", { points: points(corners(x, y, SIZE - 2)), fill, stroke: colour, "stroke-width": width, "stroke-dasharray": dash }, layer);
    }
  }

  setMarks({ lastTurn = [], spots = [], targets = [], selected = null } = {}) {
    const layer = this.markLayer;
    layer.replaceChildren();
    this.outline(layer, lastTurn, this.style.last_move, 2.5, "5 3");
    this.outline(layer, targets, this.style.cursor, 2, null, "rgba(0,229,255,0.12)");
    for (const [q, r] of spots) {
      const [x, y] = this.top(q, r, this.level(q, r));
      el("circle", { cx: x, cy: y, r: 5, fill: this.style.cursor, stroke: "#003844", "stroke-width": 1.2, class: "spot" }, layer);
    }
    if (selected) this.outline(layer, [selected], "#ffffff", 3.5);
  }

  /** The tile ghost: hexes [[q, r, terrain]], drawn one level above what is there. */
  setGhost(ghost) {
    const layer = this.ghostLayer;
    layer.replaceChildren();
    if (!ghost) return;
    const base = Math.max(...ghost.hexes.map(([q, r]) => this.level(q, r)));
    const colour = ghost.legal ? "#00e676" : this.style.illegal;
    const ordered = [...ghost.hexes].sort((a, b) => a[1] - b[1]);
    for (const [q, r, terrain] of ordered) {
      const level = base + 1;
      const [x, y] = this.top(q, r, level);
      const fill = this.terrainFill(terrain, level);
      const c = corners(x, y, SIZE);
      el("polygon", { points: points(c), fill, opacity: 0.82 }, layer);
      el("polygon", { points: points(c), fill: `url(#pat-${TERRAIN_NAMES[terrain]})`, opacity: 0.82 }, layer);
      const t = el("text", { x, y: y + 1, class: "ghost-letter", fill: contrastText(fill), "text-anchor": "middle", "dominant-baseline": "middle" }, layer);
      t.textContent = TERRAIN_LETTERS[terrain];
    }
    for (const [q, r] of ordered) {
      const [x, y] = this.top(q, r, base + 1);
      el("polygon", { points: points(corners(x, y, SIZE)), fill: "none", stroke: colour, "stroke-width": 3, "stroke-dasharray": ghost.legal ? null : "6 4" }, layer);
    }
  }

  /** Buildings a build would add, half transparent: [{hex: [q, r], kind, player, count}]. */
  setPreview(pieces) {
    const layer = this.ghostLayer;
    layer.replaceChildren();
    for (const piece of pieces || []) {
      const [q, r] = piece.hex;
      const [x, y] = this.top(q, r, this.level(q, r));
      el("polygon", { points: points(corners(x, y, SIZE - 3)), fill: "rgba(255,255,255,0.25)", stroke: "#ffffff", "stroke-width": 2 }, layer);
      if (piece.kind === "ship") this.drawShip(layer, x, y, piece.player, 0.8);
      else this.drawBuilding(layer, x, y, piece.player, piece.kind, piece.count, 0.85);
    }
  }

  setCursor(hex) {
    this.cursorLayer.replaceChildren();
    if (hex) this.outline(this.cursorLayer, [hex], "#ffffff", 2, "3 3");
  }

  // ------------------------------------------------------------------ view: pan and zoom

  islandBox() {
    let minX = Infinity; let minY = Infinity; let maxX = -Infinity; let maxY = -Infinity;
    const grow = (q, r, lift) => {
      const [x, y] = centre(q, r, SIZE);
      minX = Math.min(minX, x); maxX = Math.max(maxX, x);
      minY = Math.min(minY, y - lift); maxY = Math.max(maxY, y);
    };
    for (const [q, r, level] of this.state?.hexes || []) grow(q, r, level * LIFT);
    if (minX === Infinity) grow(0, 0, 0);
    const pad = SIZE * 3.2;
    return { x: minX - pad, y: minY - pad, w: maxX - minX + 2 * pad, h: maxY - minY + 2 * pad };
  }

  islandInView() {
    const box = this.islandBox();
    const v = this.view;
    const m = SIZE;
    return box.x + m >= v.x && box.y + m >= v.y && box.x + box.w - m <= v.x + v.w && box.y + box.h - m <= v.y + v.h;
  }

  fit() {
    const box = this.islandBox();
    const size = Math.max(box.w, box.h, SIZE * 10);
    this.view = { x: box.x + box.w / 2 - size / 2, y: box.y + box.h / 2 - size / 2, w: size, h: size };
    this.applyView();
  }

  applyView() {
    if (!this.view) return;
    const v = this.view;
    this.svg.setAttribute("viewBox", `${v.x} ${v.y} ${v.w} ${v.h}`);
  }

  zoom(factor, cx = null, cy = null) {
    const v = this.view;
    const px = cx ?? v.x + v.w / 2;
    const py = cy ?? v.y + v.h / 2;
    const w = Math.min(Math.max(v.w * factor, SIZE * 4), SIZE * 120);
    const f = w / v.w;
    this.view = { x: px - (px - v.x) * f, y: py - (py - v.y) * f, w, h: v.h * f };
    this.applyView();
  }

  pan(dx, dy) {
    this.view = { ...this.view, x: this.view.x - dx, y: this.view.y - dy };
    this.applyView();
  }

  toSvg(clientX, clientY) {
    const matrix = this.svg.getScreenCTM();
    if (!matrix) return [0, 0];
    const p = new DOMPoint(clientX, clientY).matrixTransform(matrix.inverse());
    return [p.x, p.y];
  }

  /** The hex whose (raised) top face is under a point: higher stacks are tried first. */
  hexUnder(x, y) {
    for (let level = this.maxLevel; level >= 1; level -= 1) {
      const [q, r] = hexAt(x, y + level * LIFT, SIZE);
      if (this.level(q, r) === level) return [q, r];
    }
    return hexAt(x, y, SIZE);
  }

  bindPointer() {
    const svg = this.svg;
    let drag = null;
    let pinch = null;
    svg.addEventListener("pointerdown", (event) => {
      svg.setPointerCapture?.(event.pointerId);
      this.pointers.set(event.pointerId, [event.clientX, event.clientY]);
      if (this.pointers.size === 2) {
        const [a, b] = [...this.pointers.values()];
        pinch = { distance: Math.hypot(a[0] - b[0], a[1] - b[1]) };
        drag = null;
      } else {
        drag = { x: event.clientX, y: event.clientY, moved: false, start: this.toSvg(event.clientX, event.clientY) };
      }
    });
    svg.addEventListener("pointermove", (event) => {
      if (this.pointers.has(event.pointerId)) this.pointers.set(event.pointerId, [event.clientX, event.clientY]);
      if (pinch && this.pointers.size === 2) {
        const [a, b] = [...this.pointers.values()];
        const distance = Math.hypot(a[0] - b[0], a[1] - b[1]);
        if (distance > 0 && pinch.distance > 0) {
          const [cx, cy] = this.toSvg((a[0] + b[0]) / 2, (a[1] + b[1]) / 2);
          this.zoom(pinch.distance / distance, cx, cy);
        }
        pinch.distance = distance;
        return;
      }
      if (drag && (drag.moved || Math.hypot(event.clientX - drag.x, event.clientY - drag.y) > 6)) {
        drag.moved = true;
        const [x, y] = this.toSvg(event.clientX, event.clientY);
        this.pan(x - drag.start[0], y - drag.start[1]);
        return;
      }
      if (event.pointerType === "mouse" || !drag) {
        const [x, y] = this.toSvg(event.clientX, event.clientY);
        this.callbacks.hover?.(this.hexUnder(x, y), event);
      }
    });
    const end = (event) => {
      this.pointers.delete(event.pointerId);
      if (this.pointers.size < 2) pinch = null;
      if (drag && !drag.moved && event.type === "pointerup") {
        const [x, y] = this.toSvg(event.clientX, event.clientY);
        this.callbacks.click?.(this.hexUnder(x, y), event);
      }
      drag = null;
    };
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointercancel", end);
    svg.addEventListener("pointerleave", () => this.callbacks.leave?.());
    svg.addEventListener("wheel", (event) => {
      event.preventDefault();
      if (!event.ctrlKey && this.callbacks.wheel?.(event)) return;
      const [x, y] = this.toSvg(event.clientX, event.clientY);
      this.zoom(event.deltaY > 0 ? 1.12 : 1 / 1.12, x, y);
    }, { passive: false });
  }
}

function hutSpots(n) {
  switch (n) {
    case 1: return [[0, 0]];
    case 2: return [[-0.27, 0], [0.27, 0]];
    case 3: return [[-0.3, 0.12], [0.3, 0.12], [0, -0.2]];
    case 4: return [[-0.25, -0.15], [0.25, -0.15], [-0.25, 0.25], [0.25, 0.25]];
    case 5: return [[-0.3, -0.15], [0.3, -0.15], [0, 0], [-0.3, 0.25], [0.3, 0.25]];
    default: return [[-0.3, -0.2], [0, -0.2], [0.3, -0.2], [-0.3, 0.2], [0, 0.2], [0.3, 0.2]];
  }
}
