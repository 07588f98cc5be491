// How to play: the rules as a player reads them, section by section, each rule with pictures
// of real positions that the server's engine replayed and its renderer drew (GET /api/guide).
// Addresses: #/rules (every section), #/rules/SECTION (scrolled to it), #/rules/for/TOPIC (the
// section on a kind of move: a build action or a refusal leads there), and ?with=EXPANSIONS
// for a game's rules: the sections of the expansions it does not use are left out.

import { api } from "./api.js";
import { h, clear } from "./dom.js";
import { tileFootprint } from "./hex.js";

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
    title: `How to play: ${about} (opens in a new tab)`,
    "aria-label": `How to play: ${about} (opens in a new tab)`,
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
    this.status = h("p", { class: "hint-line", role: "status" }, "Loading the rules…");
    clear(root, h("div", { class: "rules-page" }, h("h1", {}, "How to play"), this.status));
    this.load();
  }

  destroy() {}

  async load() {
    try {
      this.guide = await loadGuide();
    } catch (error) {
      this.status.textContent = `Cannot load the rules: ${error.message}`;
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
    const intro = this.where.expansions === null
      ? "The rules of Taluva, in the order a first game needs them. Each rule has pictures of real positions, checked by the game's own engine."
      : "The rules of this game, in the order a first game needs them. Each rule has pictures of real positions, checked by the game's own engine.";
    clear(this.root, h("div", { class: "rules-page" },
      h("h1", {}, "How to play"),
      h("p", { class: "rules-intro" }, intro),
      h("p", { class: "rules-legend" },
        "In the pictures each hex shows its level (the number at the top) and its coordinates. ",
        h("span", { class: "legend-legal" }, "A yellow line"), " marks the move just played; ",
        h("span", { class: "legend-refused" }, "a red line"), " marks a move the rules refuse, drawn see-through where it would go, with the reason under it. Red pieces are Ana's, white ones Ben's."),
      h("nav", { class: "rules-contents", "aria-label": "Sections" },
        h("ol", {}, ...base.map(link)),
        extras.length ? h("p", { class: "rules-contents-title" }, "Expansions") : null,
        extras.length ? h("ol", {}, ...extras.map(link)) : null),
      hidden ? h("p", { class: "hint-line" },
        `${hidden} section${hidden === 1 ? " is" : "s are"} about expansions this game does not use. `,
        h("button", { type: "button", class: "link", onclick: () => { this.showAll = true; this.render(); } }, "Show them")) : null,
      ...base.map((s) => this.section(s)),
      extras.length ? h("h2", { class: "rules-part" }, "Expansions") : null,
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
      s.pictures.length ? h("div", { class: "rule-pictures" }, ...s.pictures.map(figure)) : null);
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

/** How much larger than drawn a picture is shown (its labels stay legible; SVG stays sharp). */
const PICTURE_SCALE = 1.5;

function figure(picture) {
  const refused = picture.refusal !== null;
  const width = Math.round(picture.width * PICTURE_SCALE);
  const node = h("figure", { class: `rule-picture ${refused ? "refused" : "legal"}`, "data-picture": picture.id },
    h("img", { src: picture.svg, alt: picture.alt, width, height: Math.round(picture.height * PICTURE_SCALE), loading: "lazy", decoding: "async" }),
    h("figcaption", {},
      h("span", {}, inline(picture.caption)),
      refused ? h("span", { class: "refusal" }, "The rules refuse ", h("code", {}, picture.refused), `: ${picture.refusal}.`) : null,
      picture.result ? h("span", { class: "result" }, `The end: ${picture.result}.`) : null));
  // Sizes go in through the CSSOM (the page's policy forbids inline style attributes): the
  // caption wraps to the picture's width, or to a readable column under a small one.
  node.style.width = `max(16rem, calc(${width}px + 1rem))`;
  return node;
}
