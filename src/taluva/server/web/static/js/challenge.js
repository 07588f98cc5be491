// Challenging a player from their profile: a button opening a small form (two players, a
// clock preset, rated or casual); the answer comes in the header's inbox, which takes the
// sender to the game once it is accepted.

import { ApiError, api } from "./api.js";
import { h, toast } from "./dom.js";
import { t } from "./i18n.js";
import { currentAccount } from "./account.js";
import { refreshInbox } from "./inbox.js";

let config = null;

async function lobbyConfig() {
  config = config || api("GET", "/api/config");
  return config;
}

/** A "Challenge" button for `player` ({id, name}); null for oneself or a guest. `inline`
 * makes the small button of a list's line (the leaderboard's), else the profile's. */
export function challengeButton(player, { inline = false } = {}) {
  const me = currentAccount();
  if (!me || me.id === player.id) return null;
  return h("button", {
    type: "button", class: inline ? "challenge-open inline" : "primary challenge-open", id: inline ? null : "challenge-open",
    "aria-label": t("Challenge {name}", { name: player.name }), onclick: () => openDialog(player),
  }, inline ? t("Challenge") : t("Challenge {name}", { name: player.name }));
}

async function openDialog(player) {
  let presets;
  try {
    presets = (await lobbyConfig()).clocks || [];
  } catch (error) {
    toast(t("Cannot challenge now: {error}", { error: error.message }), "error");
    return;
  }
  const timed = presets.findIndex((p) => p.kind === "fischer" && p.base === 600);
  const clock = h("select", { id: "challenge-clock", "aria-label": t("Clock") },
    ...presets.map((preset, i) => h("option", { value: i, selected: i === timed }, preset.label)));
  const rated = h("input", { type: "checkbox", id: "challenge-rated", checked: timed >= 0 });
  const problem = h("p", { class: "form-error", role: "alert" });
  const chosen = () => presets[Number(clock.value)];
  clock.addEventListener("change", () => {
    const untimed = !chosen() || chosen().kind === "none";
    rated.disabled = untimed;
    if (untimed) rated.checked = false;
  });
  const send = h("button", { type: "submit", class: "primary", id: "challenge-send" }, t("Send the challenge"));
  const form = h("form", { class: "account-form challenge-form", onsubmit: async (event) => {
    event.preventDefault();
    const body = { to: player.id, rated: rated.checked };
    if (chosen() && chosen().kind !== "none") {
      const { label, ...rule } = chosen();
      body.clock = rule;
    }
    send.disabled = true;
    try {
      await api("POST", "/api/challenges", body);
      dialog.close();
      toast(t("Challenge sent to {name}: the answer comes at the top of the page.", { name: player.name }));
      refreshInbox();
    } catch (error) {
      problem.textContent = error instanceof ApiError ? error.message : String(error);
    } finally {
      send.disabled = false;
    }
  } },
  h("h2", {}, t("Challenge {name}", { name: player.name })),
  h("p", { class: "hint-line" }, t("A game of two players.")),
  h("label", { for: "challenge-clock" }, t("Clock")), clock,
  h("label", { class: "check" }, rated, t("Rated")),
  problem,
  h("div", { class: "row" }, send, h("button", { type: "button", onclick: () => dialog.close() }, t("Cancel"))));
  const dialog = h("dialog", { class: "account-dialog challenge-dialog" }, form);
  dialog.addEventListener("close", () => dialog.remove());
  document.body.appendChild(dialog);
  dialog.showModal();
  clock.focus();
}
