// The board's input: which hex a pointer is on (a legal spot drawn above the island first, and
// for a finger the nearest spot within reach), and the gestures: click, hover, drag to pan,
// pinch and wheel to zoom, [ and ] to turn the view, Shift+arrows to pan. What a click or a
// hover means is the page's (its callbacks); the view's own moves are the board's.

const PAN_STEP = 60;
/** How far from a tile spot, in CSS pixels, a touch still takes it. */
const TOUCH_REACH = 16;

export class BoardGestures {
  /** Bind the pointer and keys of `board`'s SVG; `callbacks` are the page's: hover(hex,
   * event), click(hex, event), wheel(event) (true if it used the wheel), leave(). */
  constructor(board, callbacks) {
    this.board = board;
    this.callbacks = callbacks;
    this.pointers = new Map();
    this.bindPointer();
    this.bindKeys();
  }

  /** A screen point in the board's SVG units. */
  toSvg(clientX, clientY) {
    const matrix = this.board.svg.getScreenCTM();
    if (!matrix) return [0, 0];
    const pt = new DOMPoint(clientX, clientY).matrixTransform(matrix.inverse());
    return [pt.x, pt.y];
  }

  /** The hex of a legal spot or build target drawn under a screen point: they show above
   * the island, so one behind a raised hex is still taken where it is seen. */
  spotAt(clientX, clientY) {
    const hit = document.elementFromPoint(clientX, clientY);
    if (!hit?.getAttribute?.("data-hex") || !this.board.markLayer.contains(hit)) return null;
    return hit.getAttribute("data-hex").split(",").map(Number);
  }

  /** The legal tile spot nearest a screen point within `reach` CSS pixels: a finger is
   * wider than a spot's dot, so a touch beside one still takes it. */
  nearestSpot(clientX, clientY, reach) {
    let best = null;
    let bestDistance = reach;
    for (const node of this.board.markLayer.querySelectorAll(".spot")) {
      const box = node.getBoundingClientRect();
      const distance = Math.hypot(box.x + box.width / 2 - clientX, box.y + box.height / 2 - clientY);
      if (distance <= bestDistance) {
        best = node;
        bestDistance = distance;
      }
    }
    return best ? best.getAttribute("data-hex").split(",").map(Number) : null;
  }

  /** The hex under a pointer event: a spot drawn there (or, for a touch, near there), else
   * the raised hex seen there. */
  hexOfEvent(event) {
    const spot = this.spotAt(event.clientX, event.clientY)
      || (event.pointerType !== "mouse" ? this.nearestSpot(event.clientX, event.clientY, TOUCH_REACH) : null);
    if (spot) return spot;
    const [x, y] = this.toSvg(event.clientX, event.clientY);
    return this.hexUnder(x, y);
  }

  /** The hex whose (raised) top face is under a point: nearer and higher hexes first. */
  hexUnder(x, y) {
    const board = this.board;
    const p = board.projection;
    let best = null;
    for (let level = board.maxLevel; level >= 1; level -= 1) {
      const [q, r] = p.hexAt(x, y, level);
      if (board.level(q, r) === level) {
        const depth = p.depth(q, r);
        if (!best || depth > best.depth) best = { hex: [q, r], depth };
      }
    }
    return best ? best.hex : p.hexAt(x, y, 0);
  }

  // ------------------------------------------------------------------ binding

  bindKeys() {
    this.board.svg.addEventListener("keydown", (event) => {
      const arrows = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
      let handled = true;
      if (event.key === "[") this.board.turn(-1);
      else if (event.key === "]") this.board.turn(1);
      else if (event.shiftKey && arrows[event.key]) {
        const [dx, dy] = arrows[event.key];
        this.board.camera.panPixels(-dx * PAN_STEP, -dy * PAN_STEP);
      } else handled = false;
      if (handled) {
        event.preventDefault();
        event.stopPropagation();
      }
      this.board.motion.skip();
    });
  }

  bindPointer() {
    const svg = this.board.svg;
    let drag = null;
    let pinch = null;
    svg.addEventListener("pointerdown", (event) => {
      this.board.motion.skip();
      // A touch must not focus (and so scroll) the board natively: the page focuses it
      // without scrolling, and the board's own gestures replace the emulated mouse.
      if (event.pointerType !== "mouse") event.preventDefault();
      svg.setPointerCapture?.(event.pointerId);
      this.pointers.set(event.pointerId, [event.clientX, event.clientY]);
      if (this.pointers.size === 2) {
        const [a, b] = [...this.pointers.values()];
        pinch = { distance: Math.hypot(a[0] - b[0], a[1] - b[1]) };
        drag = null;
      } else {
        drag = { x: event.clientX, y: event.clientY, moved: false, start: this.toSvg(event.clientX, event.clientY) };
      }
    });
    svg.addEventListener("pointermove", (event) => {
      if (this.pointers.has(event.pointerId)) this.pointers.set(event.pointerId, [event.clientX, event.clientY]);
      if (pinch && this.pointers.size === 2) {
        const [a, b] = [...this.pointers.values()];
        const distance = Math.hypot(a[0] - b[0], a[1] - b[1]);
        if (distance > 0 && pinch.distance > 0) {
          const [cx, cy] = this.toSvg((a[0] + b[0]) / 2, (a[1] + b[1]) / 2);
          this.board.zoom(pinch.distance / distance, cx, cy);
        }
        pinch.distance = distance;
        return;
      }
      if (drag && (drag.moved || Math.hypot(event.clientX - drag.x, event.clientY - drag.y) > 6)) {
        drag.moved = true;
        const [x, y] = this.toSvg(event.clientX, event.clientY);
        this.board.pan(x - drag.start[0], y - drag.start[1]);
        return;
      }
      if (event.pointerType === "mouse" || !drag) this.callbacks.hover?.(this.hexOfEvent(event), event);
    });
    const end = (event) => {
      this.pointers.delete(event.pointerId);
      if (this.pointers.size < 2) pinch = null;
      if (drag && !drag.moved && event.type === "pointerup") this.callbacks.click?.(this.hexOfEvent(event), event);
      drag = null;
    };
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointercancel", end);
    // A press whose capture was lost (its element changed under it) must not stay counted,
    // or the next touch would be taken for the second finger of a pinch.
    svg.addEventListener("lostpointercapture", (event) => this.pointers.delete(event.pointerId));
    svg.addEventListener("pointerleave", () => this.callbacks.leave?.());
    svg.addEventListener("wheel", (event) => {
      event.preventDefault();
      if (!event.ctrlKey && this.callbacks.wheel?.(event)) return;
      const [x, y] = this.toSvg(event.clientX, event.clientY);
      this.board.zoom(event.deltaY > 0 ? 1.12 : 1 / 1.12, x, y);
    }, { passive: false });
  }
}
