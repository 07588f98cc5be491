// How to play: the rules as a player reads them, section by section, each rule with pictures
// of real positions that the server's engine replayed (GET /api/guide), each drawn by the
// game's own board when it comes near the screen, still and small (its SVG drawing from the
// server's renderer if the board cannot draw).
// Addresses: #/rules (every section), #/rules/SECTION (scrolled to it), #/rules/for/TOPIC (the
// section on a kind of move: a build action or a refusal leads there), and ?with=EXPANSIONS
// for a game's rules: the sections of the expansions it does not use are left out.

import { api } from "./api.js";
import { Board, el } from "./board.js";
import { h, clear, sentenceWith } from "./dom.js";
import { t, tn } from "./i18n.js";
import { corners, key, tileFootprint } from "./hex.js";
import { previewOf } from "./legal.js";
import { Projection, SIZE, TILT } from "./projection.js";

let loading = null;

/** The guide, asked for once a page load (it never changes while the server runs). */
export function loadGuide() {
  loading ??= api("GET", "/api/guide").catch((error) => {
    loading = null;
    throw error;
  });
  return loading;
}

/** The address of the rules for a game with these expansion options (["ships", "board:expert"]). */
export function rulesFor(expansions) {
  const tags = [...new Set((expansions || []).map((option) => option.split(":")[0]))];
  return `#/rules?with=${tags.join(",")}`;
}

/** The kinds of move other than a tile, each a topic of the guide of its own. */
const MOVE_KINDS = ["draw", "double", "hut", "expand", "temple", "tower", "ship"];

/** What a move is about, for the guide: its kind; a tile the first of the game when the
 * island is empty (`island` false), else by whether it lies wholly on land (an eruption) or
 * not; `level(q, r)` gives a hex's height (0 for the sea). */
export function topicOf(moveText, level, island = true) {
  const words = (moveText || "").trim().split(/\s+/);
  if ((words[0] === "tile" || words[0] === "double") && !island) return "first-tile";
  if (words[0] !== "tile") return MOVE_KINDS.includes(words[0]) ? words[0] : null;
  const [q, r] = (words[1] || "").split(",").map(Number);
  const hexes = tileFootprint(q, r, Number(words[2]));
  return hexes.every(([a, b]) => level(a, b) > 0) ? "tile-land" : "tile-sea";
}

/** A small "?" link to the guide's section on `topic`, opened in a new tab so the game stays. */
export function ruleLink(topic, about) {
  return h("a", {
    class: "rule-link",
    href: `#/rules/for/${encodeURIComponent(topic)}`,
    target: "_blank",
    rel: "noopener",
    title: t("How to play: {topic} (opens in a new tab)", { topic: about }),
    "aria-label": t("How to play: {topic} (opens in a new tab)", { topic: about }),
  }, "?");
}

/** Read the page's address: the section or topic to show, and the game's expansions (null:
 * every section). Returns null when the address is not a rules page. */
export function parseRulesHash(hash) {
  const match = hash.match(/^#\/rules(?:\/(for\/)?([a-z-]{1,24}))?(?:\?with=([a-z_,]{0,60}))?$/);
  if (!match) return null;
  const [, isTopic, name, expansions] = match;
  return {
    section: isTopic ? null : name || null,
    topic: isTopic ? name : null,
    expansions: expansions === undefined ? null : expansions.split(",").filter(Boolean),
  };
}

export class RulesPage {
  constructor(root, where) {
    this.root = root;
    this.where = where;
    this.showAll = where.expansions === null;
    this.status = h("p", { class: "hint-line", role: "status" }, t("Loading the rules…"));
    clear(root, h("div", { class: "rules-page" }, h("h1", {}, t("How to play")), this.status));
    this.pictures = new Pictures();
    this.load();
  }

  destroy() {
    this.pictures.stop();
  }

  async load() {
    try {
      this.guide = await loadGuide();
    } catch (error) {
      this.status.textContent = t("Cannot load the rules: {error}", { error: error.message });
      return;
    }
    this.render();
  }

  /** The sections to show: the base game's and, for a game, its expansions' only. */
  shown() {
    const wanted = this.where.expansions;
    return this.guide.sections.filter((s) => this.showAll || !s.expansion || wanted.includes(s.expansion));
  }

  render() {
    const guide = this.guide;
    const target = this.where.section || guide.topics[this.where.topic] || null;
    if (target && !this.shownIds().has(target)) this.showAll = true;
    const sections = this.shown();
    const hidden = guide.sections.length - sections.length;
    const base = sections.filter((s) => !s.expansion);
    const extras = sections.filter((s) => s.expansion);
    const link = (s) => h("li", {}, h("a", { href: this.hrefOf(s.id) }, s.title));
    this.pictures.stop();
    this.pictures = new Pictures(guide.style);
    const intro = this.where.expansions === null
      ? t("The rules of Taluva, in the order a first game needs them. Each rule has pictures of real positions, checked by the game's own engine.")
      : t("The rules of this game, in the order a first game needs them. Each rule has pictures of real positions, checked by the game's own engine.");
    clear(this.root, h("div", { class: "rules-page" },
      h("h1", {}, t("How to play")),
      h("p", { class: "rules-intro" }, intro),
      h("p", { class: "rules-legend" },
        t("The pictures show the island as a game's board does: each tile laid on others stands a level higher, a raised hex carries its level in a small badge, and each hex shows its coordinates."), " ",
        ...sentenceWith(t("{yellow} marks the move just played; {red} marks a move the rules refuse, drawn see-through where it would go (a hut it would bury crossed out), with the reason under it. Red pieces are Ana's, white ones Ben's."), {
          yellow: h("span", { class: "legend-legal" }, t("A yellow dashed line")),
          red: h("span", { class: "legend-refused" }, t("a red dashed line")),
        })),
      h("nav", { class: "rules-contents", "aria-label": t("Sections") },
        h("ol", {}, ...base.map(link)),
        extras.length ? h("p", { class: "rules-contents-title" }, t("Expansions")) : null,
        extras.length ? h("ol", {}, ...extras.map(link)) : null),
      hidden ? h("p", { class: "hint-line" },
        tn("{n} section is about expansions this game does not use.", "{n} sections are about expansions this game does not use.", hidden), " ",
        h("button", { type: "button", class: "link", onclick: () => { this.showAll = true; this.render(); } }, t("Show them"))) : null,
      ...base.map((s) => this.section(s)),
      extras.length ? h("h2", { class: "rules-part" }, t("Expansions")) : null,
      ...extras.map((s) => this.section(s))));
    if (target) this.reveal(target);
  }

  shownIds() {
    return new Set(this.shown().map((s) => s.id));
  }

  hrefOf(id) {
    const wanted = this.where.expansions;
    return `#/rules/${id}${wanted === null ? "" : `?with=${wanted.join(",")}`}`;
  }

  section(s) {
    const heading = h(s.expansion ? "h3" : "h2", { id: `rule-${s.id}-title`, tabindex: "-1" }, s.title);
    return h("section", { class: "rule", id: `rule-${s.id}`, "aria-labelledby": `rule-${s.id}-title`, "data-section": s.id },
      heading,
      ...s.blocks.map(block),
      s.pictures.length ? h("div", { class: "rule-pictures" }, ...s.pictures.map((p) => this.pictures.figure(p))) : null);
  }

  /** Bring a section to the top and move the focus to its title. */
  reveal(id) {
    const title = document.getElementById(`rule-${id}-title`);
    if (!title) return;
    title.focus({ preventScroll: true });
    title.scrollIntoView({ block: "start" });
  }
}

/** A paragraph, list of points or numbered steps, with its **bold** words. */
function block({ kind, items }) {
  if (kind === "paragraph") return h("p", {}, inline(items[0]));
  return h(kind === "steps" ? "ol" : "ul", {}, ...items.map((item) => h("li", {}, inline(item))));
}

function inline(text) {
  return text.split("**").map((part, i) => (i % 2 ? h("strong", {}, part) : part));
}

/** CSS pixels per unit of the board's drawing in a picture (a hex is SIZE units across its
 * corners): large enough for the level badges and the coordinates to be read. */
const PICTURE_SCALE = 1.5;

/** How far from the screen, in CSS pixels, a picture is drawn before it is scrolled to. */
const DRAW_AHEAD = "600px 0px";

/** The pictures of the page: each figure's board, drawn when it comes near the screen (a
 * board is a few hundred SVG elements, and a page of them all at once is slow to open). */
class Pictures {
  constructor(style) {
    this.style = style;
    this.drawers = new Map();
    this.boards = new Map();
    const near = (entries) => {
      for (const entry of entries) if (entry.isIntersecting) this.draw(entry.target);
    };
    this.near = "IntersectionObserver" in window ? new IntersectionObserver(near, { rootMargin: DRAW_AHEAD }) : null;
    // A picture's host changes size with the page (a phone, a turned one): its board frames
    // the picture again (the board keeps its scale on a resize, and would cut it).
    this.resized = new ResizeObserver((entries) => {
      for (const { target, contentRect } of entries) {
        const drawn = this.boards.get(target);
        if (!drawn) continue;
        drawn.board.sized(contentRect.width, contentRect.height);
        drawn.board.camera.frame(drawn.box);
      }
    });
  }

  stop() {
    this.near?.disconnect();
    this.resized.disconnect();
    this.drawers.clear();
    this.boards.clear();
  }

  /** A picture's figure: its board's host, sized for it at once (no jump when it is drawn),
   * and its caption. */
  figure(picture) {
    const refused = picture.refusal !== null;
    // A guide kept by the browser from before the board drew the pictures has no position
    // for it: its SVG drawing is shown, at that drawing's size.
    const box = picture.board && picture.marks ? pictureBox(picture) : null;
    const [across, down] = box ? [box.w, box.h] : [picture.width, picture.height];
    const width = Math.round(across * PICTURE_SCALE);
    const host = h("div", { class: "rule-board", role: "img", "aria-label": picture.alt, "data-drawn": "no" });
    // Sizes go in through the CSSOM (the page's policy forbids inline style attributes).
    host.style.width = `${width}px`;
    host.style.aspectRatio = `${across.toFixed(1)} / ${down.toFixed(1)}`;
    if (this.style?.sea) host.style.background = this.style.sea;
    const node = h("figure", { class: `rule-picture ${refused ? "refused" : "legal"}`, "data-picture": picture.id },
      host,
      h("figcaption", {},
        h("span", {}, inline(picture.caption)),
        refused ? h("span", { class: "refusal" }, ...sentenceWith(t("The rules refuse {move}: {reason}."), { move: h("code", {}, picture.refused), reason: picture.refusal })) : null,
        picture.result ? h("span", { class: "result" }, t("The end: {result}.", { result: picture.result })) : null));
    // The caption wraps to the picture's width, or to a readable column under a small one.
    node.style.width = `max(16rem, calc(${width}px + 1rem))`;
    this.drawers.set(host, () => {
      const board = box ? drawPicture(host, picture, box, this.style) : showDrawing(host, picture);
      if (board) this.boards.set(host, { board, box });
    });
    if (this.near) this.near.observe(host);
    else queueMicrotask(() => this.draw(host));
    return node;
  }

  draw(host) {
    const drawer = this.drawers.get(host);
    if (!drawer) return;
    this.drawers.delete(host);
    this.near?.unobserve(host);
    drawer();
    if (this.boards.has(host)) this.resized.observe(host);
  }
}

const VIEW = new Projection(0);

/** The screen box of a picture in the board's units, in the board's first view: the island
 * (its tops one level up, for the pieces on them, down to its feet), the refused tile where
 * it would lie and the hexes marked, with a little sea around (where a zone's border crosses
 * near the island, it shows; the whole zone would leave the island small). */
function pictureBox({ board, marks }) {
  const levels = new Map(board.hexes.map(([q, r, level]) => [key(q, r), level]));
  const level = (q, r) => levels.get(key(q, r)) || 0;
  const tops = board.hexes.map(([q, r, height]) => [q, r, height + 1]);
  for (const [q, r] of marks.marked) tops.push([q, r, level(q, r) + 1]);
  const laid = Math.max(0, ...marks.tile.map(([q, r]) => level(q, r))) + 1;
  for (const [q, r] of marks.tile) tops.push([q, r, laid + 1]);
  const reach = corners(0, 0, SIZE).map(([x, y]) => VIEW.point(x, y, 0));
  const [left, right] = [Math.min(...reach.map(([x]) => x)), Math.max(...reach.map(([x]) => x))];
  const [up, down] = [Math.min(...reach.map(([, y]) => y)), Math.max(...reach.map(([, y]) => y))];
  const xs = [];
  const ys = [];
  for (const [q, r, top] of tops) {
    const [x, y] = VIEW.hexTop(q, r, top);
    xs.push(x + left, x + right);
    ys.push(y + up, VIEW.hexTop(q, r, 0)[1] + down);
  }
  const pad = SIZE * 0.5;
  const x = Math.min(...xs) - pad;
  const y = Math.min(...ys) - pad;
  return { x, y, w: Math.max(...xs) + pad - x, h: Math.max(...ys) + pad - y };
}

/** Draw a picture on the game's board, still (no focus, no gestures: the page scrolls over
 * it), with the board's own marks: the move just played outlined, a refused tile as the
 * ghost a player sees before placing it, a refused build as its preview outlined in red.
 * If the board cannot draw, the server's SVG drawing of the picture takes its place (and
 * null is returned). */
function drawPicture(host, picture, box, style) {
  try {
    const board = new Board(host, style);
    const svg = board.svg;
    for (const name of ["tabindex", "role", "aria-label", "aria-roledescription"]) svg.removeAttribute(name);
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("focusable", "false");
    board.art.idPrefix = `${picture.id}-`;
    board.setState({ ply: 0, ...picture.board });
    const { marked, tile, player } = picture.marks;
    if (picture.refused === null) board.overlays.setMarks({ lastTurn: marked });
    else if (tile.length) board.overlays.setGhost({ hexes: tile, legal: false });
    else {
      board.overlays.setPreview(previewOf(picture.refused, player, (q, r) => board.level(q, r)));
      const layer = el("g", { class: "refused-mark", "pointer-events": "none" }, svg);
      board.overlays.outline(layer, marked, "rgba(0,0,0,0.7)", 5, null, "none", 3);
      board.overlays.outline(layer, marked, board.style.illegal, 3, "6 4", "none", 3);
    }
    drawCoordinates(board, picture);
    board.camera.frame(box);
    host.dataset.drawn = "board";
    return board;
  } catch (error) {
    console.warn(`The board cannot draw picture ${picture.id}; its SVG drawing is shown instead.`, error);
    return showDrawing(host, picture);
  }
}

/** The server's SVG drawing of a picture in its host, in place of the board (null). */
function showDrawing(host, picture) {
  host.replaceChildren(h("img", { src: picture.svg, alt: "", decoding: "async" }));
  host.dataset.drawn = "svg";
  return null;
}

/** The neighbours drawn in front of a hex, in the pictures' view (lower on the screen). */
const FRONT = [[0, 1], [-1, 1]];

/** Each hex's coordinates, as the captions and refusals name hexes: at the foot of a hex's top
 * face, in its painting order (a raised hex in front hides them with the face); above a
 * refused tile, at the top of its faces; at sea level for a marked hex of the sea. */
function drawCoordinates(board, picture) {
  const label = (parent, x, y, q, r) => {
    el("text", { x, y, class: "coordinate" }, parent).textContent = key(q, r);
  };
  const p = board.projection;
  const { marked, tile } = picture.marks;
  const ghost = new Set(tile.map(([q, r]) => key(q, r)));
  for (const [q, r, level] of picture.board.hexes) {
    const group = board.islandLayer.querySelector(`.hex[data-hex="${key(q, r)}"]`);
    if (!group || ghost.has(key(q, r))) continue;
    const [x, y] = p.hexTop(q, r, level);
    // A higher hex in front would hide the foot of the face: then the label goes to its top,
    // or beside its centre where a level badge stands there.
    const hidden = FRONT.some(([dq, dr]) => board.level(q + dq, r + dr) > level);
    if (!hidden) label(group, x, y + SIZE * TILT * 0.74, q, r);
    else if (level < 2) label(group, x, y - SIZE * TILT * 0.6, q, r);
    else label(group, x + SIZE * 0.5, y - SIZE * TILT * 0.1, q, r);
  }
  if (tile.length) {
    const layer = el("g", { class: "coordinates", "pointer-events": "none" }, board.svg);
    const laid = Math.max(...tile.map(([q, r]) => board.level(q, r))) + 1;
    for (const [q, r] of tile) {
      const [x, y] = p.hexTop(q, r, laid);
      label(layer, x, y - SIZE * TILT * 0.6, q, r);
    }
  }
  const sea = marked.filter(([q, r]) => !board.levels.has(key(q, r)) && !ghost.has(key(q, r)));
  if (sea.length) {
    const layer = el("g", { class: "coordinates", "pointer-events": "none" });
    board.svg.insertBefore(layer, board.islandLayer);
    for (const [q, r] of sea) {
      const [x, y] = p.hexTop(q, r, 0);
      label(layer, x, y + SIZE * TILT * 0.74, q, r);
    }
  }
}
