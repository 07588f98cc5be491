// SVG helpers, colours, and the pieces standing upright on the island (huts, temples, towers,
// ships), also used as small icons in the player panels. Pieces are drawn in screen space at
// the projected centre of their hex, so they stand up whatever way the view is turned.

const NS = "http://www.w3.org/2000/svg";

/** A path or list built from numbers, each written with at most one decimal (short markup). */
export function f(strings, ...values) {
  let out = strings[0];
  values.forEach((value, i) => {
    out += (typeof value === "number" ? String(Math.round(value * 10) / 10) : value) + strings[i + 1];
  });
  return out;
}

/** An attribute value as a layer writes it: numbers with at most two decimals. */
const attribute = (value) => (typeof value === "number" ? String(Math.round(value * 100) / 100) : String(value));

/**
 * A light stand-in for an SVG element, for whole layers: drawing code builds the layer
 * through `el` exactly as it builds DOM nodes, then `fill` makes the real elements in one
 * detached fragment and inserts them at once. Text and attribute values are only ever set as
 * text and attributes, so what is drawn never becomes markup.
 */
export class Markup {
  constructor(tag = null, attrs = {}) {
    this.tag = tag;
    this.attrs = attrs;
    this.children = [];
    this.text = null;
  }

  appendChild(child) {
    this.children.push(child);
    return child;
  }

  setAttribute(name, value) {
    this.attrs = { ...this.attrs, [name]: value };
  }

  set textContent(text) {
    this.text = text;
  }

  /** The real SVG element this stands for, with its children. */
  element() {
    const node = document.createElementNS(NS, this.tag);
    for (const name in this.attrs) {
      const value = this.attrs[name];
      if (value !== undefined && value !== null) node.setAttribute(name, attribute(value));
    }
    if (this.text !== null) node.textContent = String(this.text);
    else for (const child of this.children) node.appendChild(child.element());
    return node;
  }
}

/** Replace the children of SVG node `target` with the elements `markup` holds: built in a
 * detached fragment (parsing the layer as text, or inserting node by node, costs about twice
 * as much), then inserted in one step. */
export function fill(target, markup) {
  const fragment = document.createDocumentFragment();
  for (const child of markup.children) fragment.appendChild(child.element());
  target.replaceChildren(fragment);
}

export function el(tag, attrs = {}, parent = null) {
  if (parent instanceof Markup) return parent.appendChild(new Markup(tag, attrs));
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

const shades = new Map();

/** `colour` lightened (amount > 0) or darkened (amount < 0) by that fraction. Remembered:
 * the island asks for the same few shades thousands of times in one drawing. */
export function shade(colour, amount) {
  const name = `${colour}|${amount}`;
  let out = shades.get(name);
  if (out === undefined) {
    const target = amount >= 0 ? 255 : 0;
    const a = Math.abs(amount);
    out = formatColour(parseColour(colour).map((c) => c + (target - c) * a));
    shades.set(name, out);
  }
  return out;
}

const contrasts = new Map();

/** Black or white, whichever reads on `colour` (remembered like `shade`). */
export function contrastText(colour) {
  let out = contrasts.get(colour);
  if (out === undefined) {
    const [r, g, b] = parseColour(colour);
    out = 0.299 * r + 0.587 * g + 0.114 * b > 150 ? "#000000" : "#ffffff";
    contrasts.set(colour, out);
  }
  return out;
}

export const points = (list) => list.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" ");

/** Where n huts stand on one hex, as fractions of the hex size (world x, world depth). */
export function hutSpots(n) {
  switch (n) {
    case 1: return [[0, 0]];
    case 2: return [[-0.27, 0], [0.27, 0]];
    case 3: return [[0, -0.3], [-0.3, 0.15], [0.3, 0.15]];
    case 4: return [[-0.25, -0.3], [0.25, -0.3], [-0.25, 0.3], [0.25, 0.3]];
    case 5: return [[-0.3, -0.3], [0.3, -0.3], [0, 0], [-0.3, 0.35], [0.3, 0.35]];
    default: return [[-0.32, -0.3], [0, -0.3], [0.32, -0.3], [-0.32, 0.35], [0, 0.35], [0.32, 0.35]];
  }
}

/**
 * Draws pieces for seats coloured by `colourOf(seat)`. Each seat past the first two also
 * carries a sign (dot, bar, ring) so seats stay apart in greyscale.
 */
export class PieceArt {
  constructor(colourOf, size) {
    this.colourOf = colourOf;
    this.size = size;
  }

  stroke(player) {
    return player === 4 ? "#eeeeee" : "#111111";
  }

  mark(parent, player, x, y, s) {
    const ink = contrastText(this.colourOf(player));
    if (player === 2) el("circle", { cx: x, cy: y, r: s * 0.3, fill: ink }, parent);
    if (player === 3) el("rect", { x: x - s * 0.5, y: y - s * 0.13, width: s, height: s * 0.26, fill: ink }, parent);
    if (player === 4) el("circle", { cx: x, cy: y, r: s * 0.34, fill: "none", stroke: ink, "stroke-width": 1 }, parent);
  }

  /** A hut whose ground point is (x, y): a front wall, a darker side wall and a roof. */
  hut(parent, x, y, player, s) {
    const colour = this.colourOf(player);
    const stroke = this.stroke(player);
    const w = s;
    const wall = s * 0.9;
    const d = s * 0.55;
    el("path", { d: f`M${x + w},${y} l${d},${-d * 0.6} v${-wall} l${-d},${d * 0.6} Z`, fill: shade(colour, -0.35), stroke }, parent);
    el("path", { d: f`M${x},${y - wall - s * 0.9} l${w + 0.1},${s * 0.9} l${d},${-d * 0.6} l${-w},${-s * 0.9} Z`, fill: shade(colour, -0.18), stroke }, parent);
    el("path", { d: f`M${x - w},${y} V${y - wall} L${x},${y - wall - s * 0.9} L${x + w},${y - wall} V${y} Z`, fill: colour, stroke, class: "front" }, parent);
    this.mark(parent, player, x, y - wall * 0.55, s);
  }

  temple(parent, x, y, player) {
    const u = this.size * 0.22;
    const colour = this.colourOf(player);
    const stroke = this.stroke(player);
    const attrs = { stroke, "stroke-width": 1.2, "stroke-linejoin": "round" };
    el("path", { d: f`M${x + 1.9 * u},${y} l${u},${-0.6 * u} v${-1.4 * u} l${-u},${0.6 * u} Z`, fill: shade(colour, -0.35), ...attrs }, parent);
    el("path", { d: f`M${x - 1.9 * u},${y} V${y - 1.4 * u} L${x},${y - 3 * u} L${x + 1.9 * u},${y - 1.4 * u} V${y} Z`, fill: colour, ...attrs }, parent);
    el("path", { d: f`M${x - u},${y} V${y - 1.1 * u} M${x},${y} V${y - 1.1 * u} M${x + u},${y} V${y - 1.1 * u}`, stroke, "stroke-width": 1.1 }, parent);
    this.mark(parent, player, x, y - 2 * u, u);
  }

  tower(parent, x, y, player) {
    const u = this.size * 0.22;
    const colour = this.colourOf(player);
    const stroke = this.stroke(player);
    const w = 0.95 * u;
    const top = y - 3.6 * u;
    el("path", { d: f`M${x + w},${y} l${0.6 * u},${-0.4 * u} V${top - 0.4 * u} l${-0.6 * u},${0.4 * u} Z`, fill: shade(colour, -0.35), stroke, "stroke-width": 1.1 }, parent);
    el("path", {
      d: f`M${x - w},${y} V${top} h${w * 0.5} v${u * 0.5} h${w * 0.5} v${-u * 0.5} h${w * 0.5} v${u * 0.5} h${w * 0.5} v${-u * 0.5} V${y} Z`,
      fill: colour, stroke, "stroke-width": 1.2, "stroke-linejoin": "round",
    }, parent);
    this.mark(parent, player, x, y - 1.8 * u, u);
  }

  ship(parent, x, y, player) {
    const u = this.size * 0.22;
    el("path", { d: f`M${x - 2 * u},${y - u} H${x + 2 * u} L${x + 1.3 * u},${y} H${x - 1.3 * u} Z`, fill: this.colourOf(player), stroke: "#111", "stroke-width": 1.2 }, parent);
    el("path", { d: f`M${x},${y - 1.2 * u} V${y - 3.4 * u} L${x + 1.5 * u},${y - 1.5 * u} Z`, fill: "#fafafa", stroke: "#111", "stroke-width": 1 }, parent);
    this.mark(parent, player, x - 0.8 * u, y - 0.5 * u, u);
  }

  /**
   * A building on a hex whose top centre is screen (x, y): `count` huts spread over the hex
   * (`spot(ox, oy)` projects an offset given in hex sizes), or one temple or tower.
   */
  building(parent, x, y, player, kind, count, spot, opacity = 1) {
    const g = el("g", { class: `piece ${kind}`, "data-player": player, opacity: opacity === 1 ? null : opacity }, parent);
    if (kind === "hut") {
      const n = Math.max(1, count || 1);
      const s = this.size * (n > 3 ? 0.15 : 0.19);
      const spots = hutSpots(Math.min(n, 6)).map(([ox, oy]) => spot(ox, oy)).sort((a, b) => a[1] - b[1]);
      for (const [px, py] of spots) this.hut(g, px, py + s * 0.5, player, s);
      if (n > 1) this.countBadge(g, x, y, n, player);
    } else if (kind === "temple") {
      this.temple(g, x, y + 5, player);
    } else if (kind === "tower") {
      this.tower(g, x, y + 5, player);
    } else if (kind === "ship") {
      this.ship(g, x, y + 4, player);
    }
    return g;
  }

  /** The number of huts on a hex, in a disc of the owner's colour: counts read without
   * counting roofs. A disc, where a hex's level lies on a stacked hexagon (island.js), so the
   * two small numbers are told apart by their shape. */
  countBadge(parent, x, y, n, player) {
    const colour = this.colourOf(player);
    const bx = x + this.size * 0.5;
    const by = y - this.size * 0.05;
    el("circle", { cx: bx, cy: by, r: 7, fill: colour, stroke: this.stroke(player), "stroke-width": 1.2, class: "count-badge" }, parent);
    const t = el("text", { x: bx, y: by + 0.5, class: "count", fill: contrastText(colour), "text-anchor": "middle", "dominant-baseline": "middle" }, parent);
    t.textContent = String(n);
  }
}

/** A small standalone SVG icon of one kind of piece in a seat's colour (for panels). */
export function pieceIcon(kind, player, colourOf) {
  const svg = el("svg", { class: `piece-icon ${kind}`, viewBox: "-12 -16 24 20", "aria-hidden": "true", focusable: "false" });
  const art = new PieceArt(colourOf, 30);
  if (kind === "huts") art.hut(svg, -2, 2, player, 6.5);
  else if (kind === "temples") art.temple(svg, -2, 2, player);
  else if (kind === "towers") art.tower(svg, -1, 2, player);
  else art.ship(svg, 0, 2, player);
  return svg;
}
