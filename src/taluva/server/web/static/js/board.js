// The island on screen: layers (sea, island, marks, ghost, effects, zone border, cursor), the
// camera (turn in 60° steps, zoom, pan by mouse, touch and keyboard, following the action),
// overlays for the tile ghost, legal spots, build previews and each player's last turn.
// Drawing is in island.js and pieces.js, motion in motion.js, pointer and keys in gestures.js.

import { DIRECTIONS, key, parseKey } from "./hex.js";
import { IslandArt } from "./island.js";
import { Motion, reducedMotion } from "./motion.js";
import { Markup, PieceArt, el, fill } from "./pieces.js";
import { Camera, Projection, SIZE, TILT } from "./projection.js";
import { BoardGestures } from "./gestures.js";
import { t } from "./i18n.js";
import { Overlays } from "./overlays.js";

export { el, shade, contrastText } from "./pieces.js";
export { SIZE } from "./projection.js";


export class Board {
  constructor(container, style, callbacks = {}) {
    this.callbacks = callbacks;
    this.state = null;
    this.levels = new Map();
    this.tiles = new Map();
    this.buildings = new Map();
    this.maxLevel = 0;
    this.projection = new Projection(0);
    this.svg = el("svg", {
      class: "board",
      role: "application",
      tabindex: "0",
      "aria-label": t("Island. Arrow keys move the cursor, R rotates the tile, Enter acts; [ and ] turn the view, Shift+arrows pan, + and - zoom."),
      "aria-roledescription": t("game board"),
    });
    container.appendChild(this.svg);
    this.svg.taluvaBoard = this; // for the browser tests and bench/web_render.py
    this.defs = el("defs", {}, this.svg);
    this.art = new IslandArt(this.defs, style);
    this.style = this.art.style;
    this.pieces = new PieceArt((seat) => this.playerColour(seat), SIZE);
    this.background = el("rect", { x: -20000, y: -20000, width: 40000, height: 40000, fill: this.style.sea }, this.svg);
    this.seaLayer = el("g", { class: "sea" }, this.svg);
    this.islandLayer = el("g", { class: "island" }, this.svg);
    this.markLayer = el("g", { class: "marks", "pointer-events": "none" }, this.svg);
    this.ghostLayer = el("g", { class: "ghost", "pointer-events": "none" }, this.svg);
    this.effectLayer = el("g", { class: "effects", "pointer-events": "none" }, this.svg);
    this.zoneLayer = el("g", { class: "zone", "pointer-events": "none" }, this.svg);
    this.cursorLayer = el("g", { class: "cursor", "pointer-events": "none" }, this.svg);
    this.camera = new Camera(this.svg, { reducedMotion });
    this.motion = new Motion(this);
    this.overlays = new Overlays(this);
    this.gestures = new BoardGestures(this, callbacks);
    this.host = container;
    new ResizeObserver(([entry]) => this.sized(entry.contentRect.width, entry.contentRect.height)).observe(container);
  }

  /**
   * Give the SVG its host's size in pixels, keeping the view's centre and scale. Sized by
   * percentage, the SVG would be laid out again, with every text of the island (tens of
   * milliseconds), whenever anything beside the board changed, such as the hint line.
   */
  sized(width, height) {
    const style = this.svg.style;
    if (!width || !height || (style.width === `${width}px` && style.height === `${height}px`)) return;
    style.width = `${width}px`;
    style.height = `${height}px`;
    this.camera.resized();
    this.camera.apply();
  }

  terrainFill(terrain, level) {
    return this.art.terrainFill(terrain, level);
  }

  playerColour(player) {
    const list = this.style.players;
    return list[player % list.length];
  }

  level(q, r) {
    return this.levels.get(key(q, r)) || 0;
  }

  // ------------------------------------------------------------------ the island

  /** Show `state`; `animate` (a move was just played) plays its motion and follows it. */
  setState(state, { animate = false } = {}) {
    const previous = this.state;
    const first = previous === null;
    this.state = state;
    this.levels = new Map();
    this.tiles = new Map();
    this.maxLevel = 0;
    for (const [q, r, level, , tile] of state.hexes) {
      this.levels.set(key(q, r), level);
      this.tiles.set(key(q, r), tile);
      this.maxLevel = Math.max(this.maxLevel, level);
    }
    this.buildings = new Map();
    for (const [q, r, player, kind, level] of state.buildings || []) {
      this.buildings.set(key(q, r), { player, kind, level });
    }
    this.motion.skip();
    const start = performance.now();
    if (first) {
      const box = this.host.getBoundingClientRect();
      this.sized(box.width, box.height);
    }
    const oneMove = animate && previous && state.ply === previous.ply + 1;
    this.redrawn = oneMove && this.update(previous) ? "changed hexes" : "whole island";
    if (this.redrawn === "whole island") this.draw();
    if (first) this.fit();
    // For bench/web_render.py: how long drawing took, and until the frame after it was shown.
    performance.measure(first ? "board:first-draw" : "board:draw", { start, end: performance.now() });
    if (first) requestAnimationFrame(() => setTimeout(() => performance.measure("board:first-frame", { start, end: performance.now() })));
    if (animate && previous) {
      const changed = this.motion.play(previous, state);
      if (changed.length) this.reveal(changed);
    }
  }

  draw() {
    const p = this.projection;
    const state = this.state;
    const sea = new Markup();
    const island = new Markup();
    const zoneLine = new Markup();
    this.drawLayers(p, state, sea, island, zoneLine);
    fill(this.seaLayer, sea);
    fill(this.islandLayer, island);
    fill(this.zoneLayer, zoneLine);
    this.overlays.marksChanged();
  }

  drawLayers(p, state, seaLayer, layer, zoneLayer) {
    const zone = state.zone?.polygon?.length ? this.art.zoneOutline(p, state.zone.polygon) : null;
    if (zone) this.art.zoneShade(seaLayer, zone);
    this.art.seaGrid(seaLayer, p, state.hexes, (q, r) => this.levels.has(key(q, r)));
    this.art.lagoons(seaLayer, p, state.lagoons);
    const items = state.hexes.map(([q, r, level, terrain, tile]) => ({ q, r, level, terrain, tile, depth: p.depth(q, r) }));
    for (const [q, r, player] of state.ships || []) items.push({ q, r, ship: player, depth: p.depth(q, r) });
    items.sort((a, b) => a.depth - b.depth);
    const levelOf = (q, r) => this.levels.get(key(q, r)) || 0;
    const tileOf = (q, r) => this.tiles.get(key(q, r));
    for (const item of items) this.drawItem(layer, p, item, levelOf, tileOf);
    if (zone) this.art.zoneBorder(zoneLayer, zone);
  }

  /** One hex (its prism and building) or one ship, in painting order. */
  drawItem(layer, p, item, levelOf, tileOf) {
    if (item.ship !== undefined) {
      const [x, y] = p.hexTop(item.q, item.r, 0);
      this.pieces.building(layer, x, y, item.ship, "ship", 1, null).setAttribute("data-hex", key(item.q, item.r));
      return;
    }
    const g = this.art.prism(layer, p, item, levelOf, tileOf);
    const building = this.buildings.get(key(item.q, item.r));
    if (building) this.drawBuilding(g, item.q, item.r, item.level, building);
  }

  /**
   * After one move, redraw only the hexes it changed and their neighbours (whose sides and
   * edges depend on them), each put back in painting order, and the sea where land was
   * added; the result is the same as a whole drawing. False when the change is not a
   * move's (then draw everything).
   */
  update(previous) {
    const state = this.state;
    const same = (a, b) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
    if (!same(previous.ships, state.ships) || !same(previous.zone, state.zone) || previous.hexes.length > state.hexes.length) return false;
    const before = new Map(previous.hexes.map(([q, r, ...rest]) => [key(q, r), rest.join("|")]));
    const built = new Map((previous.buildings || []).map(([q, r, ...rest]) => [key(q, r), rest.join("|")]));
    const now = new Map(state.hexes.map(([q, r, level, terrain, tile]) => [key(q, r), { q, r, level, terrain, tile }]));
    const changed = new Set();
    for (const [k, hex] of now) {
      const b = this.buildings.get(k);
      if (before.get(k) !== `${hex.level}|${hex.terrain}|${hex.tile}`) changed.add(k);
      if ((built.get(k) ?? "") !== (b ? `${b.player}|${b.kind}|${b.level}` : "")) changed.add(k);
    }
    if (changed.size > 40) return false;
    const affected = new Set(changed);
    for (const k of changed) {
      const [q, r] = parseKey(k);
      for (const [dq, dr] of DIRECTIONS) if (now.has(key(q + dq, r + dr))) affected.add(key(q + dq, r + dr));
    }
    const p = this.projection;
    const depthOf = (node) => p.depth(...parseKey(node.getAttribute("data-hex")));
    for (const node of [...this.islandLayer.children]) {
      if (node.classList.contains("hex") && affected.has(node.getAttribute("data-hex"))) node.remove();
    }
    const levelOf = (q, r) => this.levels.get(key(q, r)) || 0;
    const tileOf = (q, r) => this.tiles.get(key(q, r));
    const scratch = el("g");
    // The layer's children are in painting order: each redrawn hex goes before the first
    // child nearer than it (found by bisection over their depths, read once).
    const children = [...this.islandLayer.children];
    const depths = children.map(depthOf);
    for (const k of affected) {
      const hex = now.get(k);
      const markup = new Markup();
      this.drawItem(markup, p, hex, levelOf, tileOf);
      fill(scratch, markup);
      const node = scratch.firstChild;
      const depth = p.depth(hex.q, hex.r);
      let low = 0;
      let high = depths.length;
      while (low < high) {
        const middle = (low + high) >> 1;
        if (depths[middle] > depth) high = middle;
        else low = middle + 1;
      }
      this.islandLayer.insertBefore(node, children[low] || null);
      children.splice(low, 0, node);
      depths.splice(low, 0, depth);
    }
    // The sea (its grid, lagoons and the zone's shade) changes only where land was added.
    if (previous.hexes.length !== state.hexes.length || !same(previous.lagoons, state.lagoons)) {
      const sea = new Markup();
      const zone = state.zone?.polygon?.length ? this.art.zoneOutline(p, state.zone.polygon) : null;
      if (zone) this.art.zoneShade(sea, zone);
      this.art.seaGrid(sea, p, state.hexes, (q, r) => this.levels.has(key(q, r)));
      this.art.lagoons(sea, p, state.lagoons);
      fill(this.seaLayer, sea);
    }
    this.overlays.marksChanged();
    return true;
  }

  /** A hex's building at its top; huts spread over the face in the current projection. */
  drawBuilding(parent, q, r, level, { player, kind, level: count }, opacity = 1) {
    const [x, y] = this.projection.hexTop(q, r, level);
    const spot = (ox, oy) => [x + ox * SIZE, y + oy * SIZE * TILT];
    return this.pieces.building(parent, x, y, player, kind, count, spot, opacity);
  }

  // ------------------------------------------------------------------ camera

  /** The screen box of hexes (their tops and their feet), in SVG units. */
  boxOf(hexes) {
    let minX = Infinity; let minY = Infinity; let maxX = -Infinity; let maxY = -Infinity;
    const [left, up, right, down] = this.art.faceReach(this.projection);
    for (const [q, r] of hexes) {
      // The top face at one level above the hex and its foot at sea level: same x.
      const [x, top] = this.projection.hexTop(q, r, this.level(q, r) + 1);
      const [, foot] = this.projection.hexTop(q, r, 0);
      minX = Math.min(minX, x + left); maxX = Math.max(maxX, x + right);
      minY = Math.min(minY, top + up); maxY = Math.max(maxY, foot + down);
    }
    return { x: minX, y: minY, w: maxX - minX, h: maxY - minY };
  }

  /** The whole island, its coast and the zone border: what "Fit" shows. */
  islandBox() {
    const hexes = this.state?.hexes?.length ? this.state.hexes.map(([q, r]) => [q, r]) : [[0, 0]];
    const box = this.boxOf(hexes);
    const pad = SIZE * 2.2;
    let { x, y } = box;
    let x2 = box.x + box.w;
    let y2 = box.y + box.h;
    const zone = this.state?.zone?.polygon;
    if (zone?.length) {
      for (const [zx, zy] of this.art.zoneOutline(this.projection, zone)) {
        x = Math.min(x, zx); x2 = Math.max(x2, zx); y = Math.min(y, zy); y2 = Math.max(y2, zy);
      }
    }
    const w = Math.max(x2 - x + 2 * pad, SIZE * 13);
    const h = Math.max(y2 - y + 2 * pad, SIZE * 8);
    return { x: (x + x2) / 2 - w / 2, y: (y + y2) / 2 - h / 2, w, h };
  }

  fit() {
    this.camera.frame(this.islandBox());
  }

  zoom(factor, cx, cy) {
    this.camera.zoom(factor, cx, cy);
  }

  pan(dx, dy) {
    this.camera.pan(dx, dy);
  }

  /** Pan so that `hexes` are in view, above `reserve` CSS pixels (a sheet over the board). */
  reveal(hexes, reserve = 0) {
    if (!hexes.length) return;
    this.camera.reveal(this.boxOf(hexes), { reserve });
  }

  /** Centre `hexes` above `reserve` CSS pixels, zooming in if pieces would be too small. */
  focus(hexes, reserve = 0) {
    if (hexes.length) this.camera.focus(this.boxOf(hexes), { reserve });
  }

  /** Turn the view by `step` sixths of a turn about what is in the middle of the screen. */
  turn(step) {
    const whole = this.state ? this.contains(this.islandBox()) : false;
    const old = this.projection;
    const [wx, wy] = old.unpoint(this.camera.cx, this.camera.cy, 0);
    this.projection = new Projection(old.turn + step);
    const [cx, cy] = this.projection.point(wx, wy, 0);
    this.camera.cx = cx;
    this.camera.cy = cy;
    if (this.state) this.draw();
    this.camera.apply();
    if (whole && !this.contains(this.islandBox())) this.fit();
    this.callbacks.turned?.(this.projection.turn);
  }

  /** Whether box lies wholly in the view. */
  contains(box) {
    const v = this.camera.visible();
    return box.x >= v.x && box.y >= v.y && box.x + box.w <= v.x + v.w && box.y + box.h <= v.y + v.h;
  }
}
