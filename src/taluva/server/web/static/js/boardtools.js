// The board's tool buttons, the same on a game's page, the lesson and the puzzles: the tile's
// tools (turn it, place it, let it go) and the view's zoom.

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** A tool button: `title` is its tooltip and its accessible name. */
export function toolButton(label, title, action, extra = {}) {
  return h("button", { type: "button", title, "aria-label": title, onclick: action, ...extra }, label);
}

/** The tile's tools of `page` (BoardInput shows and hides them as the tile is placed). */
export function tileTools(page) {
  return {
    rotateLeft: toolButton("⟲", t("Rotate the tile counter-clockwise (R, wheel)"), () => page.rotate(1), { class: "rotate" }),
    rotateRight: toolButton("⟳", t("Rotate the tile clockwise (Shift+R)"), () => page.rotate(-1), { class: "rotate" }),
    place: toolButton(t("Place tile"), t("Place the tile here (Enter)"), () => page.confirmTile(), { class: "primary", id: "place" }),
    cancel: toolButton(t("Cancel"), t("Let the tile follow the pointer again (Escape)"), () => page.unlock()),
  };
}

/** Zoom out, zoom in and fit the whole island, on `page`'s board. */
export function zoomButtons(page) {
  return [
    toolButton("−", t("Zoom out (-)"), () => page.board.zoom(1.25)),
    toolButton("+", t("Zoom in (+)"), () => page.board.zoom(0.8)),
    toolButton(t("Fit"), t("Show the whole island (0)"), () => page.board.fit()),
  ];
}

/** The span that holds the tile's tools in a toolbar. */
export function tileToolSpan(tools) {
  return h("span", { class: "tile-tools" }, tools.rotateLeft, tools.rotateRight, tools.place, tools.cancel);
}
