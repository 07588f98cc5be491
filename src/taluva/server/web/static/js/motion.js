// Short animations of what a move changed: the tile dropping into place, huts buried by an
// eruption sinking away, a settlement's new huts appearing hex by hex. Each is skippable (any
// key or pointer on the board finishes it) and none runs when the user prefers reduced motion.

import { key } from "./hex.js";

const DROP_MS = 320;
const BURY_MS = 480;
const POP_MS = 240;
const POP_STEP_MS = 110;

/** Whether the user asked the system for less motion. */
export function reducedMotion() {
  return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
}

function buildingsOf(state) {
  const out = new Map();
  for (const [q, r, player, kind, level] of state.buildings || []) out.set(key(q, r), { q, r, player, kind, level });
  return out;
}

function levelsOf(state) {
  const out = new Map();
  for (const [q, r, level] of state.hexes) out.set(key(q, r), level);
  return out;
}

export class Motion {
  constructor(board) {
    this.board = board;
    this.running = new Set();
  }

  /** Finish every running animation at once (and drop the buried huts' ghosts). */
  skip() {
    for (const animation of [...this.running]) animation.finish();
    this.running.clear();
    this.board.effectLayer.replaceChildren();
  }

  get busy() {
    return this.running.size > 0;
  }

  run(node, keyframes, options) {
    const animation = node.animate(keyframes, { fill: "backwards", easing: "ease-out", ...options });
    this.running.add(animation);
    animation.onfinish = () => this.running.delete(animation);
    animation.oncancel = () => this.running.delete(animation);
    return animation;
  }

  /**
   * Animate the step from `previous` to `next` (one move forward) and return the hexes it
   * changed, for the camera to follow; jumps of more than one move are only followed.
   */
  play(previous, next) {
    const board = this.board;
    const oldLevels = levelsOf(previous);
    const oldBuildings = buildingsOf(previous);
    const newBuildings = buildingsOf(next);
    const raised = next.hexes.filter(([q, r, level]) => level > (oldLevels.get(key(q, r)) || 0)).map(([q, r]) => [q, r]);
    const built = [...newBuildings.values()].filter((b) => {
      const old = oldBuildings.get(key(b.q, b.r));
      return !old || old.player !== b.player || old.kind !== b.kind;
    });
    const buried = [...oldBuildings.values()].filter((b) => !newBuildings.has(key(b.q, b.r)));
    const ships = (next.ships || []).filter(([q, r]) => !(previous.ships || []).some(([a, b]) => a === q && b === r));
    const changed = [...raised, ...built.map((b) => [b.q, b.r]), ...ships.map(([q, r]) => [q, r])];
    if (reducedMotion() || next.ply !== previous.ply + 1) return changed;
    for (const [q, r] of raised) {
      const node = board.islandLayer.querySelector(`.hex[data-hex="${q},${r}"]`);
      if (node) this.run(node, [{ transform: "translate(0px, -34px)", opacity: 0.2 }, { transform: "translate(0px, 0px)", opacity: 1 }], { duration: DROP_MS, easing: "cubic-bezier(.5,0,.9,.6)" });
    }
    for (const b of buried) {
      const level = oldLevels.get(key(b.q, b.r)) || 1;
      const ghost = board.drawBuilding(board.effectLayer, b.q, b.r, level, b);
      const animation = this.run(ghost, [{ transform: "translate(0px, 0px)", opacity: 1 }, { transform: "translate(0px, 14px)", opacity: 0 }], { duration: BURY_MS, delay: DROP_MS * 0.6, fill: "forwards", easing: "ease-in" });
      animation.finished.then(() => ghost.remove(), () => ghost.remove());
    }
    if (built.length) {
      const [q0, r0] = [built[0].q, built[0].r];
      const distance = (b) => (Math.abs(b.q - q0) + Math.abs(b.r - r0) + Math.abs(b.q + b.r - q0 - r0)) / 2;
      const order = [...built].sort((a, b) => distance(a) - distance(b));
      order.forEach((b, index) => {
        const node = board.islandLayer.querySelector(`.hex[data-hex="${b.q},${b.r}"] .piece`);
        if (node) this.run(node, [{ transform: "scale(0.1)", opacity: 0 }, { transform: "scale(1)", opacity: 1 }], { duration: POP_MS, delay: index * POP_STEP_MS, easing: "cubic-bezier(.3,1.5,.6,1)" });
      });
    }
    return changed;
  }
}
