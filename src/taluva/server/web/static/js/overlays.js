// What the board shows over the island for the turn being played: each player's last turn,
// the legal spots of the tile and the build targets, the tile ghost (with the huts it would
// bury), a build's preview, and the keyboard cursor. The page says what to show; this draws
// it in the board's layers and projection.

import { contrastText, el, fill, Markup, points } from "./pieces.js";
import { TERRAIN_LETTERS, key } from "./hex.js";
import { SIZE } from "./projection.js";

export class Overlays {
  constructor(board) {
    this.board = board;
    this.marks = {};
    this.marksStale = false;
  }

  /** The top face of each hex, a little inset, in a colour. */
  outline(layer, hexes, colour, width = 3, dash = null, fill = "none", inset = 2) {
    const board = this.board;
    for (const [q, r] of hexes) {
      const face = board.art.face(board.projection, q, r, board.level(q, r), (SIZE - inset) / SIZE);
      el("polygon", { points: points(face), fill, stroke: colour, "stroke-width": width, "stroke-dasharray": dash, "data-hex": key(q, r) }, layer);
    }
  }

  /**
   * Marks: `turns` [{seat, hexes, latest}] (each player's last turn, in the player's colour,
   * the latest one solid), legal `spots` for the tile, build `targets`, the `selected` hex.
   */
  setMarks(marks = {}) {
    const board = this.board;
    this.marks = marks;
    this.drawMarks();
    // The camera follows the action: if no spot or target of this turn is in view, show all.
    const wanted = marks.spots?.length ? marks.spots : marks.targets || [];
    if (wanted.length && !wanted.some((hex) => board.contains(board.boxOf([hex])))) board.fit();
  }

  /** The island changed under the marks: draw them again before the next frame, unless new
   * marks come first (the game page sets them after every state, in the same task). */
  marksChanged() {
    this.marksStale = true;
    queueMicrotask(() => { if (this.marksStale) this.drawMarks(); });
  }

  drawMarks() {
    const board = this.board;
    this.marksStale = false;
    const { turns = [], lastTurn = [], spots = [], targets = [], selected = null } = this.marks;
    const layer = new Markup();
    if (!board.state) {
      board.markLayer.replaceChildren();
      return;
    }
    for (const turn of turns) {
      const g = el("g", { class: `last-turn${turn.latest ? " latest" : ""}`, "data-seat": turn.seat }, layer);
      this.outline(g, turn.hexes, "rgba(0,0,0,0.7)", turn.latest ? 5 : 4.5, null, "none", 3);
      this.outline(g, turn.hexes, board.playerColour(turn.seat), turn.latest ? 3 : 2.5, turn.latest ? null : "6 4", "none", 3);
    }
    this.outline(layer, lastTurn, board.style.last_move, 2.5, "5 3");
    const nearer = (a, b) => board.projection.depth(...a) - board.projection.depth(...b);
    const targetGroup = el("g", { class: "targets" }, layer);
    this.outline(targetGroup, [...targets].sort(nearer), board.style.cursor, 2, null, "rgba(0,229,255,0.14)");
    for (const node of targetGroup.children) node.setAttribute("pointer-events", "all");
    for (const [q, r] of spots) {
      const [x, y] = board.projection.hexTop(q, r, board.level(q, r));
      el("circle", { cx: x, cy: y, r: 5.5, fill: board.style.cursor, stroke: "#003844", "stroke-width": 1.2, class: "spot", "data-hex": key(q, r), "pointer-events": "all" }, layer);
    }
    if (selected) this.outline(layer, [selected], "#ffffff", 3.5);
    fill(board.markLayer, layer);
  }

  /**
   * The tile ghost: hexes [[q, r, terrain]] one level above what is there, with its sides;
   * the huts under it are crossed out (what they add up to, the tooltip has from the server).
   */
  setGhost(ghost) {
    const board = this.board;
    const layer = board.ghostLayer;
    layer.replaceChildren();
    if (!ghost) return;
    const p = board.projection;
    const base = Math.max(...ghost.hexes.map(([q, r]) => board.level(q, r)));
    const level = base + 1;
    const colour = ghost.legal ? "#00e676" : board.style.illegal;
    const ordered = [...ghost.hexes].sort((a, b) => p.depth(a[0], a[1]) - p.depth(b[0], b[1]));
    const body = el("g", { opacity: 0.88, class: "ghost-tile" }, layer);
    for (const [q, r, terrain] of ordered) {
      board.art.prism(body, p, { q, r, level, terrain, tile: -1 }, () => 0, () => -1, { ghost: true });
      const [x, y] = p.hexTop(q, r, level);
      const letter = el("text", { x, y: y + 1, class: "ghost-letter", fill: contrastText(board.terrainFill(terrain, level)), "text-anchor": "middle", "dominant-baseline": "middle" }, body);
      letter.textContent = TERRAIN_LETTERS[terrain]; // the notation's letter, as on the island
    }
    for (const [q, r] of ordered) {
      const face = board.art.face(p, q, r, level);
      el("polygon", { points: points(face), fill: "none", stroke: colour, "stroke-width": 3, "stroke-dasharray": ghost.legal ? null : "6 4" }, layer);
    }
    for (const [q, r] of ghost.hexes) {
      const building = board.buildings.get(key(q, r));
      if (!building || building.kind !== "hut" || base === 0) continue;
      const [x, y] = p.hexTop(q, r, level);
      const g = el("g", { class: "buried", "data-hex": key(q, r) }, layer);
      el("circle", { cx: x, cy: y, r: 11, fill: "rgba(0,0,0,0.55)", stroke: board.style.illegal, "stroke-width": 2.5 }, g);
      el("path", { d: `M${x - 6},${y - 6} L${x + 6},${y + 6} M${x + 6},${y - 6} L${x - 6},${y + 6}`, stroke: "#ffffff", "stroke-width": 2.5, "stroke-linecap": "round" }, g);
      const count = el("text", { x, y: y + 20, class: "buried-count", fill: "#ffffff", stroke: "#000", "stroke-width": 3, "paint-order": "stroke", "text-anchor": "middle" }, g);
      count.textContent = `−${building.level}`;
    }
  }

  /** Pieces a build would add, half transparent, each hex with its hut count. */
  setPreview(pieces) {
    const board = this.board;
    const layer = board.ghostLayer;
    layer.replaceChildren();
    const p = board.projection;
    const sorted = [...(pieces || [])].sort((a, b) => p.depth(...a.hex) - p.depth(...b.hex));
    for (const piece of sorted) {
      const [q, r] = piece.hex;
      const level = board.level(q, r);
      this.outline(layer, [[q, r]], "#ffffff", 2, null, "rgba(255,255,255,0.25)", 3);
      if (piece.kind === "ship") {
        const [x, y] = p.hexTop(q, r, 0);
        board.pieces.building(layer, x, y, piece.player, "ship", 1, null, 0.85);
      } else {
        board.drawBuilding(layer, q, r, level, { player: piece.player, kind: piece.kind, level: piece.count }, 0.88);
      }
    }
  }

  setCursor(hex) {
    this.board.cursorLayer.replaceChildren();
    if (hex) this.outline(this.board.cursorLayer, [hex], "#ffffff", 2, "3 3");
  }
}
