// The replay: any earlier position of the game on the board, stepped through with buttons, a
// slider or the move log, or played move by move. Positions come from the server (the deck's
// hidden order stays there) and are kept once fetched.

import { api } from "./api.js";
import { h, clear, toast } from "./dom.js";

const STEP_MS = 700;

export class Replayer {
  /** `page` is the GamePage: its game id, live state, board and `render`. */
  constructor(page) {
    this.page = page;
    this.current = null; // {ply, state}
    this.cache = new Map();
    this.timer = null;
    this.node = h("div", { class: "replay", hidden: true });
  }

  destroy() {
    this.stopPlaying();
  }

  /** Show the replay, or leave it for the live position. */
  toggle() {
    const page = this.page;
    if (this.current) {
      this.current = null;
      this.stopPlaying();
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
    const forward = this.current ? ply === this.current.ply + 1 : false;
    this.current = { ply, state: snapshot };
    page.buildMenu.drop();
    page.board.setState(snapshot, { animate: forward });
    page.render();
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
      type: "range", min: 0, max: total, value: ply, "aria-label": "Move number",
      oninput: (e) => this.show(Number(e.target.value)),
    });
    const step = (label, title, target) => h("button", { type: "button", title, "aria-label": title, onclick: () => this.show(target) }, label);
    const playButton = h("button", {
      type: "button", title: "Play the game move by move", onclick: () => this.playOrPause(),
    }, this.timer ? "Pause" : "Play");
    clear(box,
      h("div", { class: "replay-controls" },
        step("⇤", "First position", 0), step("◀", "Previous move", ply - 1), playButton,
        step("▶", "Next move", ply + 1), step("⇥", "Last position", total)),
      slider,
      h("div", { class: "replay-ply" }, `Move ${ply} of ${total}${ply > 0 ? ": " + state.moves[ply - 1] : ""}`));
  }
}
