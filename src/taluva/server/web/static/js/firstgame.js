// A newcomer's first minute, at the top of the lobby: "Learn to play" (the guided first game,
// #/learn) and "Play the computer" (a casual game against the computer's first level, made in
// one click). Until this browser has won the lesson, learning comes first and large; after,
// playing does, and the lesson stays a small link.

import { ApiError, api, playerName, tokens } from "./api.js";
import { h, toast } from "./dom.js";
import { t } from "./i18n.js";
import { currentAccount } from "./account.js";
import { hosts } from "./resign.js";

const TUTORIAL_KEY = "taluva.tutorial";
const STEP_KEY = "taluva.tutorial.step";

/** What localStorage holds of a key, or null (storage refused: private browsing). */
function stored(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function store(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // storage refused: the lesson starts at its beginning next time, the lobby offers it first
  }
}

/** This browser's way through the lesson (kept in localStorage): the step it reached, so a
 * reload goes on from there, and whether it has finished the lesson. */
export const tutorialProgress = {
  done() {
    return stored(TUTORIAL_KEY) === "done";
  },
  finish() {
    store(TUTORIAL_KEY, "done");
    store(STEP_KEY, null);
  },
  /** The step reached (0: none yet). */
  step() {
    const number = Number(stored(STEP_KEY));
    return Number.isInteger(number) && number > 0 ? number : 0;
  },
  reach(number) {
    store(STEP_KEY, number > 0 ? String(number) : null);
  },
};

/** The computer's first level, from the server's table (/api/config). */
export function firstLevel(config) {
  return Math.min(...config.levels);
}

/** Create a casual game, this browser against the computer's first level, and open it. */
export async function playComputer(config) {
  const name = currentAccount()?.name || playerName.get() || null;
  const body = {
    seats: [{ kind: "human", name, take: true }, { kind: "ai", level: firstLevel(config) }],
    rated: false,
    hints: true,
  };
  try {
    const reply = await api("POST", "/api/games", body);
    for (const { seat, token } of reply.tokens) tokens.add(reply.game.id, seat, token);
    if (reply.host_token) hosts.add(reply.game.id, reply.host_token);
    location.hash = `#/game/${reply.game.id}`;
  } catch (error) {
    toast(error instanceof ApiError ? error.message : String(error), "error");
  }
}

export class FirstGame {
  constructor(config) {
    const level = firstLevel(config);
    const done = tutorialProgress.done();
    const play = h("button", {
      type: "button", id: "play-computer", class: done ? "primary big" : "big",
      onclick: async (event) => {
        const button = event.currentTarget; // gone from the event once it has been handled
        button.disabled = true;
        await playComputer(config);
        button.disabled = false;
      },
    }, t("Play the computer (level {level})", { level }));
    const note = h("p", { class: "hint-line" }, t("A casual game in one click: unrated, no clock, hints allowed."));
    if (done) {
      this.node = h("section", { class: "first-game done", "aria-label": t("Quick start") },
        h("div", { class: "first-actions" }, play,
          h("a", { href: "#/learn", id: "learn-to-play", class: "learn-again" }, t("Learn to play again"))),
        note);
      return;
    }
    this.node = h("section", { class: "first-game", "aria-label": t("New to Taluva?") },
      h("h2", {}, t("New to Taluva?")),
      h("p", {}, t("Learn the rules by playing: a guided first game against two scripted opponents, about ten minutes, and you win it.")),
      h("div", { class: "first-actions" },
        h("a", { href: "#/learn", id: "learn-to-play", class: "button primary big" }, t("Learn to play")),
        play),
      note);
  }

  destroy() {}
}
