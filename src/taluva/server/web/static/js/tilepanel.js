// The tile panel: tiles left, the drawn tile pictured as it is turned, and in the tile phase
// the choices the player has: draw, or take a face-up double-hex tile.

import { h, clear } from "./dom.js";
import { TERRAIN_LETTERS, doubleFootprint, tileFootprint, tileTerrains } from "./hex.js";
import { t } from "./i18n.js";

/** The terrains' names, by their index in hex.js's TERRAIN_LETTERS. */
const TERRAIN_WORDS = [t("volcano"), t("jungle"), t("clearing"), t("sand"), t("rock"), t("lake")];

const SVG_NS = "http://www.w3.org/2000/svg";
const SIZE = 10;

export class TilePanel {
  /** `page` is the GamePage: its turn, legal moves, tile mode and orientation, board colours. */
  constructor(page) {
    this.page = page;
    this.node = h("div", { class: "tile-panel" });
  }

  render(s) {
    const page = this.page;
    const parts = [h("span", { class: "tiles-left" }, t("Tiles left: {n}", { n: s.tiles_left }))];
    if (s.tile && s.phase === "tile") {
      parts.push(h("span", { class: "drawn" }, t("Drawn tile:"), " ", this.picture(s.tile, false)));
    }
    if (page.myTurn() && s.phase === "tile") {
      if (page.legal.has("draw")) {
        parts.push(h("button", { type: "button", class: "primary", onclick: () => page.play("draw") }, t("Draw a tile")));
      }
      const codes = new Set(s.legal.filter((m) => m.startsWith("double ")).map((m) => m.split(" ")[1]));
      for (const code of codes) {
        parts.push(h("button", {
          type: "button", class: page.mode?.code === code ? "selected" : "",
          onclick: () => page.takeDouble(code),
        }, t("Take"), " ", this.picture(code, true)));
      }
    }
    if (s.doubles && s.doubles.length) parts.push(h("span", { class: "doubles" }, t("Double-hex tiles face up: {tiles}", { tiles: s.doubles.join(" ") })));
    clear(this.node, ...parts);
  }

  /** A small picture of tile `code`, turned as the player has turned it on the board. */
  picture(code, double) {
    const page = this.page;
    const terrains = tileTerrains(code, double);
    const svg = document.createElementNS(SVG_NS, "svg");
    const k = page.mode && page.mode.code === code ? page.orientation : 0;
    const hexes = double ? doubleFootprint(0, 0, k) : tileFootprint(0, 0, k);
    const pts = hexes.map(([q, r]) => [SIZE * Math.sqrt(3) * (q + r / 2), SIZE * 1.5 * r]);
    const xs = pts.map((p) => p[0]);
    const ys = pts.map((p) => p[1]);
    const minX = Math.min(...xs) - SIZE; const minY = Math.min(...ys) - SIZE;
    svg.setAttribute("viewBox", `${minX} ${minY} ${Math.max(...xs) - minX + SIZE} ${Math.max(...ys) - minY + SIZE}`);
    svg.setAttribute("class", "tile-picture");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", t("tile {code}: {terrains}", { code, terrains: terrains.map((terrain) => TERRAIN_WORDS[terrain]).join(", ") }));
    pts.forEach(([x, y], i) => {
      const poly = document.createElementNS(SVG_NS, "polygon");
      const corners = [];
      for (let c = 0; c < 6; c += 1) {
        const a = (Math.PI / 180) * (60 * c - 30);
        corners.push(`${(x + SIZE * Math.cos(a)).toFixed(1)},${(y + SIZE * Math.sin(a)).toFixed(1)}`);
      }
      poly.setAttribute("points", corners.join(" "));
      poly.setAttribute("fill", page.board.terrainFill(terrains[i], 2));
      poly.setAttribute("stroke", "#111");
      poly.setAttribute("stroke-width", "0.8");
      svg.appendChild(poly);
      const text = document.createElementNS(SVG_NS, "text");
      text.setAttribute("x", x); text.setAttribute("y", y + 3);
      text.setAttribute("text-anchor", "middle");
      text.setAttribute("class", "mini-letter");
      text.textContent = TERRAIN_LETTERS[terrains[i]]; // the notation's letter, as on the island
      svg.appendChild(text);
    });
    return svg;
  }
}
