// The fixed oblique projection of the island and the camera that looks at it.
// World coordinates are the flat hex layout of hex.js (pixels, sea level); the view turns
// them in 60° steps (a pointy-top hex stays pointy-top), squashes depth by TILT and lifts
// each level by LEVEL_HEIGHT, so a stack of tiles shows its sides and vertical stays vertical
// (pieces stand upright). The camera keeps one scale for both axes and the SVG's own aspect,
// so a screen pixel maps to the same board distance everywhere.

import { SQRT3, centre, hexAt } from "./hex.js";

export const SIZE = 30;
export const TILT = 0.62;
export const LEVEL_HEIGHT = 11;

const MIN_SCALE = 0.12;
const MAX_SCALE = 4;

/** A projection for view rotation `turn` (0-5, in 60° steps counter-clockwise). */
export class Projection {
  constructor(turn = 0) {
    this.turn = ((turn % 6) + 6) % 6;
    const angle = (-Math.PI / 3) * this.turn;
    this.cos = Math.cos(angle);
    this.sin = Math.sin(angle);
  }

  /** Screen point (SVG user units) of world point (x, y) at height `level`. */
  point(x, y, level = 0) {
    const xr = x * this.cos - y * this.sin;
    const yr = x * this.sin + y * this.cos;
    return [xr, yr * TILT - level * LEVEL_HEIGHT];
  }

  /** World point under screen point (sx, sy) on the plane of height `level`. */
  unpoint(sx, sy, level = 0) {
    const xr = sx;
    const yr = (sy + level * LEVEL_HEIGHT) / TILT;
    return [xr * this.cos + yr * this.sin, -xr * this.sin + yr * this.cos];
  }

  /** Screen centre of the top face of hex (q, r) standing at `level`. */
  hexTop(q, r, level) {
    const [x, y] = centre(q, r, SIZE);
    return this.point(x, y, level);
  }

  /** Depth of a hex for painting back to front (larger is nearer the viewer). */
  depth(q, r) {
    const [x, y] = centre(q, r, SIZE);
    const yr = x * this.sin + y * this.cos;
    const xr = x * this.cos - y * this.sin;
    return yr * 1000 + xr * 0.001;
  }

  /** The hex under screen point (sx, sy) if it lay at `level`. */
  hexAt(sx, sy, level = 0) {
    const [x, y] = this.unpoint(sx, sy, level);
    return hexAt(x, y, SIZE);
  }

  /** Screen offset of a world-direction unit vector (for normals: is a side facing us?). */
  direction(dx, dy) {
    return [dx * this.cos - dy * this.sin, dx * this.sin + dy * this.cos];
  }
}

/** World vector from a hex centre to its neighbour in direction (dq, dr). */
export function worldStep(dq, dr) {
  return [SIZE * SQRT3 * (dq + dr / 2), SIZE * 1.5 * dr];
}

/**
 * The camera: a centre and a scale (SVG units per CSS pixel), turned into the SVG's viewBox
 * with the element's own aspect ratio. Moves glide over a few frames unless motion is off.
 */
export class Camera {
  constructor(svg, { reducedMotion = () => false } = {}) {
    this.svg = svg;
    this.cx = 0;
    this.cy = 0;
    this.scale = 1;
    this.reducedMotion = reducedMotion;
    this.glide = null;
  }

  /** The SVG's size in CSS pixels, read once per resize (`resized`): reading it on every
   * question would force a layout in the middle of drawing. */
  pixels() {
    if (!this.size) this.resized();
    return this.size;
  }

  resized() {
    this.size = [this.svg.clientWidth || 800, this.svg.clientHeight || 600];
  }

  /** The board rectangle the viewer sees, in SVG units. */
  visible() {
    const [w, h] = this.pixels();
    return { x: this.cx - (w * this.scale) / 2, y: this.cy - (h * this.scale) / 2, w: w * this.scale, h: h * this.scale };
  }

  apply() {
    const v = this.visible();
    this.svg.setAttribute("viewBox", `${v.x.toFixed(2)} ${v.y.toFixed(2)} ${v.w.toFixed(2)} ${v.h.toFixed(2)}`);
  }

  /** Show box {x, y, w, h} whole, centred, leaving `reserve` CSS pixels free at the bottom. */
  frame(box, { reserve = 0, animate = false } = {}) {
    const [w, h] = this.pixels();
    const usable = Math.max(h - reserve, h * 0.4);
    const scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, box.w / w, box.h / usable));
    const cx = box.x + box.w / 2;
    const cy = box.y + box.h / 2 + (reserve * scale) / 2;
    this.moveTo(cx, cy, scale, animate);
  }

  /** Pan (keeping the zoom) so that box is inside the view, above `reserve` pixels. */
  reveal(box, { reserve = 0, margin = 12 } = {}) {
    const v = this.visible();
    const bottom = v.y + v.h - reserve * this.scale;
    const m = margin * this.scale;
    if (box.w + 2 * m > v.w || box.h + 2 * m > bottom - v.y) {
      this.frame({ x: box.x - m, y: box.y - m, w: box.w + 2 * m, h: box.h + 2 * m }, { reserve, animate: true });
      return;
    }
    let dx = 0;
    let dy = 0;
    if (box.x - m < v.x) dx = box.x - m - v.x;
    else if (box.x + box.w + m > v.x + v.w) dx = box.x + box.w + m - (v.x + v.w);
    if (box.y - m < v.y) dy = box.y - m - v.y;
    else if (box.y + box.h + m > bottom) dy = box.y + box.h + m - bottom;
    if (dx || dy) this.moveTo(this.cx + dx, this.cy + dy, this.scale, true);
  }

  /** Centre box in the view above `reserve` pixels, zooming in until a board unit is at
   * least `pixels` CSS pixels wide (never zooming out past what shows the box whole). */
  focus(box, { reserve = 0, pixels = 1.4, margin = 24 } = {}) {
    const [w, h] = this.pixels();
    const usable = Math.max(h - reserve, h * 0.3);
    const whole = Math.max((box.w + 2 * margin) / w, (box.h + 2 * margin) / usable);
    const scale = Math.max(MIN_SCALE, Math.min(this.scale, Math.max(1 / pixels, whole)));
    const cy = box.y + box.h / 2 + (reserve * scale) / 2;
    this.moveTo(box.x + box.w / 2, cy, scale, true);
  }

  moveTo(cx, cy, scale, animate) {
    cancelAnimationFrame(this.glide?.frame);
    this.glide = null;
    if (!animate || this.reducedMotion()) {
      this.cx = cx; this.cy = cy; this.scale = scale;
      this.apply();
      return;
    }
    const from = [this.cx, this.cy, this.scale];
    const start = performance.now();
    const step = (now) => {
      const t = Math.min(1, (now - start) / 260);
      const e = t * (2 - t);
      this.cx = from[0] + (cx - from[0]) * e;
      this.cy = from[1] + (cy - from[1]) * e;
      this.scale = from[2] + (scale - from[2]) * e;
      this.apply();
      if (t < 1) this.glide = { frame: requestAnimationFrame(step) };
      else this.glide = null;
    };
    this.glide = { frame: requestAnimationFrame(step) };
  }

  /** Zoom by `factor` (>1 zooms out) keeping SVG point (px, py) where it is on screen. */
  zoom(factor, px = this.cx, py = this.cy) {
    const scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, this.scale * factor));
    const f = scale / this.scale;
    this.cx = px - (px - this.cx) * f;
    this.cy = py - (py - this.cy) * f;
    this.scale = scale;
    this.apply();
  }

  /** Move the board by (dx, dy) SVG units. */
  pan(dx, dy) {
    this.cx -= dx;
    this.cy -= dy;
    this.apply();
  }

  /** Pan by CSS pixels (keyboard and buttons). */
  panPixels(dx, dy) {
    this.pan(dx * this.scale, dy * this.scale);
  }
}
