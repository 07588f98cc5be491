// The build menu: the builds a clicked hex offers, each previewed on the board as it is
// pointed at; a first click chooses, a second (or "Confirm") plays; a "?" beside each opens
// its rule in "How to play". On a phone it is a sheet at the bottom, and the board pans so
// that nothing it would change hides behind it.

import { h, clear } from "./dom.js";
import { key } from "./hex.js";
import { t } from "./i18n.js";
import { describeBuild } from "./legal.js";
import { ruleLink, topicOf } from "./rules.js";

/** How long (ms) a menu opened by a touch ignores clicks: the touch is followed by emulated
 * mouse events that must not choose an action. */
const TOUCH_SETTLE = 350;

export class BuildMenu {
  /** `page` is the GamePage: its turn, legal builds, board, overlays and `play`. */
  constructor(page) {
    this.page = page;
    this.current = null; // {hex, moves, selected, opened}
    this.node = h("div", { class: "build-menu", hidden: true, role: "dialog", "aria-label": t("Build") });
  }

  /** Open the menu of `hex`, or explain why nothing can be built there. */
  open(hex, byTouch = false) {
    const page = this.page;
    const moves = page.buildsByHex.get(key(...hex));
    if (!moves) {
      this.current = null;
      page.explanations.request(`hut ${key(...hex)}`, true);
      page.render();
      return;
    }
    const selected = moves.length === 1 ? moves[0] : null;
    this.current = { hex, moves, selected, opened: byTouch ? performance.now() : -Infinity };
    page.render();
    this.reveal();
    this.node.querySelector("button")?.focus();
    if (byTouch) setTimeout(() => this.render(), TOUCH_SETTLE + 10);
  }

  /** Open the menu of `hex` with `move` chosen (the hint's build). */
  suggest(hex, move) {
    const moves = this.page.buildsByHex.get(key(...hex)) || [move];
    this.current = { hex, moves, selected: move, opened: -Infinity };
    this.page.render();
  }

  /** Forget the menu without drawing (the caller draws). */
  drop() {
    this.current = null;
  }

  close() {
    this.current = null;
    this.page.render();
    this.page.svgFocus();
  }

  /** Pan so that the chosen hex and every hex its builds touch stay clear of the build sheet. */
  reveal() {
    if (!this.current) return;
    const page = this.page;
    const { hex, moves } = this.current;
    const hexes = [hex, ...moves.flatMap((m) => page.previewOf(m).map((p) => p.hex))];
    const sheet = this.node.getBoundingClientRect();
    const board = page.board.svg.getBoundingClientRect();
    page.board.focus(hexes, Math.max(0, board.bottom - sheet.top));
  }

  /** Whether the menu has been open long enough to take a click. */
  ready() {
    return !!this.current && performance.now() - this.current.opened > TOUCH_SETTLE;
  }

  /** The "?" beside a build: its rule, unless the menu opened by a touch is still settling. */
  rule(text) {
    const link = ruleLink(topicOf(text), describeBuild(text, this.page.state.expansion_huts));
    link.addEventListener("click", (event) => { if (!this.ready()) event.preventDefault(); });
    return link;
  }

  render() {
    const page = this.page;
    const box = this.node;
    const menu = this.current;
    if (!menu || !page.myTurn()) {
      box.hidden = true;
      clear(box);
      return;
    }
    const preview = (text) => page.board.overlays.setPreview(page.previewOf(text));
    const items = menu.moves.map((text) => h("div", { class: "menu-entry" }, h("button", {
      type: "button",
      class: `menu-item${menu.selected === text ? " selected" : ""}`,
      "data-move": text,
      "aria-pressed": menu.selected === text ? "true" : "false",
      onmouseenter: () => preview(text),
      onfocus: () => preview(text),
      onmouseleave: () => page.drawOverlays(),
      onclick: () => {
        if (!this.ready()) return;
        if (menu.selected === text) { page.play(text); return; }
        menu.selected = text;
        page.render();
        box.querySelector(`[data-move="${CSS.escape(text)}"]`)?.focus();
      },
      ondblclick: () => { if (this.ready()) page.play(text); },
    }, describeBuild(text, page.state.expansion_huts), h("small", {}, text)), this.rule(text)));
    const confirm = h("button", {
      type: "button", class: "primary confirm", disabled: !menu.selected,
      onclick: () => { if (this.ready()) page.play(menu.selected); },
    }, menu.selected ? t("Confirm: {action}", { action: describeBuild(menu.selected, page.state.expansion_huts) }) : t("Choose an action"));
    clear(box,
      h("div", { class: "menu-title" }, t("Hex {hex}", { hex: key(...menu.hex) })),
      ...items, confirm,
      h("button", { type: "button", onclick: () => { if (this.ready()) this.close(); } }, t("Cancel")));
    box.hidden = false;
    box.dataset.ready = this.ready() ? "true" : "false";
  }
}
