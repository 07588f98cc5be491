// The replay: any earlier position of the game on the board, stepped through with buttons, a
// slider, the move log or the keys (Left and Right a move, Home and End the ends), or played
// move by move. Positions come from the server (the deck's hidden order stays there) and are
// kept once fetched. The address names the move shown (`?ply=N` before the game's `#/game/ID`),
// so that a copied link opens the replay there.

import { api } from "./api.js";
import { h, clear, toast } from "./dom.js";
import { t } from "./i18n.js";

const STEP_MS = 700;
/** The address's query parameter that names the move shown. */
const PLY_PARAM = "ply";

/** Whether a key pressed in `target` is a field's to handle (text, the slider, a list). */
function typing(target) {
  return target instanceof HTMLInputElement || target instanceof HTMLSelectElement
    || target instanceof HTMLTextAreaElement || !!target?.isContentEditable;
}

/** Put `ply` (or nothing, for null) in the address, without a new history entry. */
function setLinkedPly(ply) {
  const url = new URL(location.href);
  if (ply === null) url.searchParams.delete(PLY_PARAM);
  else url.searchParams.set(PLY_PARAM, String(ply));
  if (url.href !== location.href) history.replaceState(history.state, "", url);
}

export class Replayer {
  /** `page` is the GamePage: its game id, live state, board and `render`. */
  constructor(page) {
    this.page = page;
    this.current = null; // {ply, state}
    this.wanted = null; // the ply last asked for: steps count from it while it loads
    this.cache = new Map();
    this.timer = null;
    this.closed = false;
    this.linked = new URL(location.href).searchParams.get(PLY_PARAM); // read at the first state
    this.node = h("div", { class: "replay", hidden: true });
    this.keyHandler = (event) => this.key(event);
    document.addEventListener("keydown", this.keyHandler);
  }

  /** Stop; the address keeps its move only while it still shows this game (a sign-in
   * shows the page again, a link to elsewhere leaves it). */
  destroy() {
    this.closed = true;
    this.stopPlaying();
    document.removeEventListener("keydown", this.keyHandler);
    if (location.hash !== `#/game/${this.page.id}`) setLinkedPly(null);
  }

  /** With the game's first state: open the replay at the move the address names, if it is
   * one of the game's (0 to its last); any other value is dropped for the live position. */
  openLinked() {
    const text = this.linked;
    this.linked = null;
    if (text === null) return;
    const total = this.page.state.ply;
    const ply = /^\d{1,6}$/.test(text) ? Number(text) : -1;
    if (total > 0 && ply >= 0 && ply <= total) this.show(ply);
    else setLinkedPly(null);
  }

  /** Show the replay, or leave it for the live position. */
  toggle() {
    const page = this.page;
    if (this.current) {
      this.current = null;
      this.wanted = null;
      this.stopPlaying();
      setLinkedPly(null);
      page.board.setState(page.state);
      page.render();
    } else {
      this.show(page.state.result ? page.state.ply : Math.max(0, page.state.ply - 1));
    }
  }

  /** Show the position after `ply` moves (animated when it is one move on). */
  async show(ply) {
    const page = this.page;
    const total = page.state.ply;
    ply = Math.max(0, Math.min(ply, total));
    this.wanted = ply;
    let snapshot = this.cache.get(ply);
    if (!snapshot) {
      try {
        snapshot = ply === total ? page.state : await api("GET", `/api/games/${encodeURIComponent(page.id)}/state?ply=${ply}`);
      } catch (error) {
        toast(error.message, "error");
        return;
      }
      if (ply !== total) this.cache.set(ply, snapshot);
    }
    // A later step may have been asked (and shown) while this one loaded.
    if (this.closed || this.wanted !== ply) return;
    const forward = this.current ? ply === this.current.ply + 1 : false;
    this.current = { ply, state: snapshot };
    setLinkedPly(ply);
    page.buildMenu.drop();
    page.board.setState(snapshot, { animate: forward });
    page.render();
  }

  /** Left and Right step a move, Home and End go to the ends, while the replay is shown
   * and the key is not a field's or already taken (the review graph's points use them). */
  key(event) {
    if (!this.current || event.defaultPrevented || typing(event.target)) return;
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const from = this.wanted ?? this.current.ply;
    const targets = { ArrowLeft: from - 1, ArrowRight: from + 1, Home: 0, End: this.page.state.ply };
    if (!(event.key in targets)) return;
    event.preventDefault();
    const ply = Math.max(0, Math.min(targets[event.key], this.page.state.ply));
    if (ply !== from) this.show(ply);
  }

  stopPlaying() {
    clearInterval(this.timer);
    this.timer = null;
  }

  playOrPause() {
    const page = this.page;
    if (this.timer) {
      this.stopPlaying();
      page.render();
      return;
    }
    this.timer = setInterval(() => {
      if (!this.current || this.current.ply >= page.state.ply) {
        this.stopPlaying();
        page.render();
        return;
      }
      this.show(this.current.ply + 1);
    }, STEP_MS);
    page.render();
  }

  render() {
    const box = this.node;
    if (!this.current) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    const state = this.page.state;
    const total = state.ply;
    const ply = this.current.ply;
    const slider = h("input", {
      type: "range", min: 0, max: total, value: ply, "aria-label": t("Move number"),
      oninput: (e) => this.show(Number(e.target.value)),
    });
    // Each step's title names its key as the language names it ("Pos1" on a German keyboard).
    const step = (label, name, title, keys, target) => h("button", {
      type: "button", title, "aria-label": name, "aria-keyshortcuts": keys,
      onclick: () => this.show(target),
    }, label);
    const playButton = h("button", {
      type: "button", title: t("Play the game move by move"), onclick: () => this.playOrPause(),
    }, this.timer ? t("Pause") : t("Play"));
    clear(box,
      h("div", { class: "replay-controls" },
        step("⇤", t("First position"), t("First position (Home)"), "Home", 0),
        step("◀", t("Previous move"), t("Previous move (←)"), "ArrowLeft", ply - 1), playButton,
        step("▶", t("Next move"), t("Next move (→)"), "ArrowRight", ply + 1),
        step("⇥", t("Last position"), t("Last position (End)"), "End", total)),
      slider,
      h("div", { class: "replay-ply" }, ply > 0
        ? t("Move {ply} of {total}: {move}", { ply, total, move: state.moves[ply - 1] })
        : t("Move {ply} of {total}", { ply, total })));
  }
}
