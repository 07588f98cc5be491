// The players' clocks: each seat's time left, the running one ticking down between the
// server's updates. The server keeps the time; this page only counts down from what it sent.

import { h, clear } from "./dom.js";
import { number, t } from "./i18n.js";

/** The language's decimal sign ("." or ","), for the tenths of the last seconds. */
const DECIMAL = number(1.5).replace(/\d/g, "");

/** Time left in words a player reads at a glance: "1d 4h", "3h 05m", "9:58", "0:04.2". */
export function formatTime(ms) {
  const total = Math.max(0, ms);
  const seconds = Math.floor(total / 1000);
  const days = Math.floor(seconds / 86400);
  const hours = Math.floor((seconds % 86400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  const two = (n) => String(n).padStart(2, "0");
  if (days) return t("{days}d {hours}h", { days, hours });
  if (hours) return t("{hours}h {minutes}m", { hours, minutes: two(minutes) });
  if (total < 10000) return `${minutes}:${two(rest)}${DECIMAL}${Math.floor((total % 1000) / 100)}`;
  return `${minutes}:${two(rest)}`;
}

/** The rule of a clock in words, for the lobby and the game page. */
export function clockRule(clock) {
  if (!clock) return t("no clock");
  const time = formatTime(clock.base_ms);
  if (clock.kind === "turn") return t("{time} a turn", { time });
  if (!clock.increment_ms) return time;
  return t("{time} + {seconds} s a turn", { time, seconds: clock.increment_ms / 1000 });
}

export class ClockPanel {
  constructor() {
    this.node = h("section", { class: "clocks", "aria-label": t("Clocks"), hidden: true });
    this.clock = null;
    this.receivedAt = 0;
    this.timer = setInterval(() => this.tick(), 200);
  }

  destroy() {
    clearInterval(this.timer);
  }

  /** Show the clocks of ``state`` (the server's times as of now). */
  update(state) {
    const clock = state.status === "live" || state.status === "finished" ? state.clock : null;
    this.node.hidden = !clock;
    if (!clock) {
      this.clock = null;
      return;
    }
    if (clock !== this.clock) {
      this.clock = clock;
      this.receivedAt = performance.now();
    }
    this.rows = state.players.map((p) => {
      const time = h("span", { class: "clock-time", role: "timer", "data-seat": p.seat });
      return h("div", { class: "clock-row", "data-seat": p.seat }, h("span", { class: "clock-name" }, p.name), time);
    });
    clear(this.node, h("h3", {}, h("span", { class: "clock-label" }, t("Clock:"), " "), clockRule(clock)), ...this.rows);
    this.tick();
  }

  tick() {
    const clock = this.clock;
    if (!clock || !this.rows) return;
    const elapsed = performance.now() - this.receivedAt;
    this.rows.forEach((row, seat) => {
      const left = clock.remaining_ms[seat];
      const running = clock.running === seat;
      const time = row.querySelector(".clock-time");
      time.textContent = left === null ? t("untimed") : formatTime(running ? left - elapsed : left);
      row.classList.toggle("running", running);
      row.classList.toggle("low", left !== null && (running ? left - elapsed : left) < 10000);
    });
  }
}
