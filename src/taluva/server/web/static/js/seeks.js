// Finding a game in the lobby: the quick pairing tiles (one click seeks a common game; the
// same tile clicked by enough players starts it), a custom seek, and the seeks waiting, each
// taken with one click. Only signed-in players seek. A seek of yours is followed every few
// seconds: once its game starts, this page goes there.

import { ApiError, api } from "./api.js";
import { h, clear, toast } from "./dom.js";
import { t, tn } from "./i18n.js";
import { currentAccount, onAccountChange } from "./account.js";
import { kindTag } from "./ratings.js";

const FOLLOW_MS = 3000;

/** A setup's clock in a few characters: "10+20", "1 day a turn", "no clock". */
export function shortClock(clock) {
  if (!clock || clock.kind === "none") return t("no clock");
  if (clock.kind === "turn") {
    const days = clock.per_turn / 86400;
    return Number.isInteger(days) ? tn("{n} day a turn", "{n} days a turn", days) : clock.label || t("turn-based");
  }
  return `${clock.base / 60}+${clock.increment}`;
}

/** A setup (of a seek or a challenge) in words: "2 players, 10+20, rated"; `names`: words for
 * the options' names, when the caller has them. */
export function setupWords(setup, joiner = ", ", names = {}) {
  const options = [...(setup.expansions || []), ...(setup.house_rules || [])].map((o) => names[o] || o);
  const tiles = setup.tiles_per_player && setup.tiles_per_player !== 12 ? tn("{n} tile each", "{n} tiles each", setup.tiles_per_player) : null;
  return [tn("{n} player", "{n} players", setup.players), shortClock(setup.clock), setup.rated ? t("rated") : t("casual"), tiles, ...options]
    .filter(Boolean).join(joiner);
}

/** A player with their rating: "Ana (1500)". */
export function rated(player) {
  return player.rating == null ? player.name : `${player.name} (${player.rating})`;
}

export class SeeksPanel {
  /** `names`: the lobby's words for expansions and house rules ({expansions, houseRules}). */
  constructor(node, config, names = {}) {
    this.node = node;
    this.config = config;
    this.names = names;
    this.mine = new Set(); // ids of seeks this player is in, followed until their game starts
    this.seeks = [];
    this.busy = false;
    this.build();
    this.refresh();
    this.timer = setInterval(() => this.refresh(), FOLLOW_MS);
    this.stop = onAccountChange(() => { this.mine.clear(); this.render(); this.refresh(); });
  }

  destroy() {
    clearInterval(this.timer);
    this.stop();
  }

  build() {
    const quick = this.config.seeks?.quick || [];
    this.tiles = quick.map((tile) => h("button", {
      type: "button", class: "quick-tile", "data-tile": tile.id, title: t("Seek: {game}", { game: tile.label }),
      onclick: () => this.quick(tile),
    }, h("span", { class: "quick-players" }, tn("{n} player", "{n} players", tile.seek.players)),
    h("span", { class: "quick-clock" }, shortClock(tile.seek.clock)),
    kindTag(tile.seek.rated)));
    this.status = h("p", { class: "hint-line", id: "seek-status", role: "status", "aria-live": "polite" });
    this.list = h("ul", { class: "games", id: "seek-list" });
    clear(this.node,
      h("h2", {}, t("Quick pairing")),
      h("div", { class: "quick-tiles", id: "quick-tiles" }, ...this.tiles),
      this.status,
      this.customForm(),
      h("h2", {}, t("Seeks")),
      h("p", { class: "hint-line" }, t("Players looking for a game: take one with a click.")),
      this.list);
  }

  /** The custom seek: players, clock preset, rated or casual, options, rating range. */
  customForm() {
    const counts = this.config.player_counts;
    this.players = h("select", { id: "seek-players", "aria-label": t("Players"), onchange: () => this.playersChosen() },
      ...counts.map((n) => h("option", { value: n }, tn("{n} player", "{n} players", n))));
    this.clock = h("select", { id: "seek-clock", "aria-label": t("Clock"), onchange: () => this.clockChosen() },
      ...(this.config.clocks || []).map((preset, i) => h("option", { value: i, selected: preset.kind === "fischer" && preset.base === 600 }, preset.label)));
    this.rated = h("input", { type: "checkbox", id: "seek-rated", checked: true });
    this.tilesEach = h("select", { id: "seek-tiles", "aria-label": t("Tiles per player") },
      ...this.config.tiles_per_player.map((n) => h("option", { value: n, selected: n === 12 }, tn("{n} tile each", "{n} tiles each", n))));
    this.range = h("select", { id: "seek-range", "aria-label": t("Opponents' ratings") },
      h("option", { value: "" }, t("Any rating")),
      ...(this.config.seeks?.rating_ranges || []).map((r) => h("option", { value: r }, t("Within ±{range} of mine", { range: r }))));
    const expansionNames = this.names.expansions || {};
    const ruleNames = this.names.houseRules || {};
    this.options = [
      ...this.config.expansions.filter((e) => !e.startsWith("board:")).map((name) => [name, expansionNames[name] || name]),
      ...this.config.house_rules.map((name) => [name, ruleNames[name] || name]),
    ].map(([name, words]) => h("label", { class: "check" }, h("input", { type: "checkbox", value: name, class: "seek-option" }), words));
    const form = h("form", { class: "seek-form", id: "seek-form", onsubmit: (e) => { e.preventDefault(); this.custom(); } },
      this.players, this.clock, h("label", { class: "check" }, this.rated, t("Rated")),
      this.tilesEach, this.range, ...this.options,
      h("button", { type: "submit", class: "primary", id: "seek-submit" }, t("Seek this game")));
    return h("details", { class: "seek-custom" }, h("summary", {}, t("Seek another game")), form);
  }

  /** The lobby's words for the expansions and house rules, by name. */
  optionNames() {
    return { ...(this.names.expansions || {}), ...(this.names.houseRules || {}) };
  }

  /** More tiles each are for two players only (the engine's rule): the choice follows. */
  playersChosen() {
    const two = Number(this.players.value) === 2;
    for (const option of this.tilesEach.options) option.disabled = !two && option.value !== "12";
    if (!two) this.tilesEach.value = "12";
  }

  clockChosen() {
    const preset = (this.config.clocks || [])[Number(this.clock.value)];
    const timed = preset && preset.kind !== "none";
    this.rated.disabled = !timed;
    if (!timed) this.rated.checked = false;
  }

  custom() {
    const preset = (this.config.clocks || [])[Number(this.clock.value)];
    const body = {
      players: Number(this.players.value),
      rated: this.rated.checked,
      tiles_per_player: Number(this.tilesEach.value),
      expansions: this.options.map((l) => l.querySelector("input")).filter((i) => i.checked && this.config.expansions.includes(i.value)).map((i) => i.value),
      house_rules: this.options.map((l) => l.querySelector("input")).filter((i) => i.checked && this.config.house_rules.includes(i.value)).map((i) => i.value),
      rating_range: this.range.value ? Number(this.range.value) : null,
    };
    if (preset && preset.kind !== "none") {
      const { label, ...clock } = preset;
      body.clock = clock;
    }
    this.seek(body);
  }

  /** A tile: seek its game, or cancel the seek of it this player is waiting in. */
  quick(tile) {
    const waiting = this.seeks.find((s) => s.yours && s.status === "open" && sameSetup(s.setup, tile.seek));
    if (waiting) this.cancel(waiting.id);
    else this.seek(tile.seek);
  }

  async seek(body) {
    if (!currentAccount()) {
      toast(t("Sign in (at the top of the page) to seek a game."), "error");
      return;
    }
    if (this.busy) return;
    this.busy = true;
    try {
      const { seek } = await api("POST", "/api/seeks", body);
      this.mine.add(seek.id);
      if (!this.started(seek)) await this.refresh();
    } catch (error) {
      toast(error instanceof ApiError ? error.message : String(error), "error");
    } finally {
      this.busy = false;
    }
  }

  async take(id) {
    try {
      const { seek } = await api("POST", `/api/seeks/${id}/take`);
      this.mine.add(seek.id);
      if (!this.started(seek)) await this.refresh();
    } catch (error) {
      toast(error instanceof ApiError ? error.message : String(error), "error");
      this.refresh();
    }
  }

  async cancel(id) {
    try {
      await api("DELETE", `/api/seeks/${id}`);
      this.mine.delete(id);
    } catch (error) {
      toast(error instanceof ApiError ? error.message : String(error), "error");
    }
    this.refresh();
  }

  /** Go to the game of a started seek; whether it had one. */
  started(seek) {
    if (seek.status !== "matched" || !seek.game) return false;
    this.mine.delete(seek.id);
    toast(t("Your game has started."));
    location.hash = `#/game/${encodeURIComponent(seek.game)}`;
    return true;
  }

  async refresh() {
    try {
      const { seeks } = await api("GET", "/api/seeks");
      this.seeks = seeks;
      for (const seek of seeks) if (seek.yours) this.mine.add(seek.id);
      // a seek of mine no longer listed has started (or gone): ask after it
      for (const id of [...this.mine]) {
        if (seeks.some((s) => s.id === id)) continue;
        try {
          const { seek } = await api("GET", `/api/seeks/${id}`);
          if (this.started(seek)) return;
        } catch (error) {
          if (error instanceof ApiError && error.status === 404) {
            this.mine.delete(id);
            toast(t("Your seek has gone: it was cancelled or it expired."));
          }
        }
      }
      this.render();
    } catch (error) {
      clear(this.list, h("li", { class: "empty" }, t("Cannot load the seeks: {error}", { error: error.message })));
    }
  }

  render() {
    const signedIn = !!currentAccount();
    const quick = this.config.seeks?.quick || [];
    quick.forEach((tile, i) => {
      const waiting = this.seeks.some((s) => s.yours && sameSetup(s.setup, tile.seek));
      this.tiles[i].classList.toggle("waiting", waiting);
      this.tiles[i].setAttribute("aria-pressed", String(waiting));
    });
    const mine = this.seeks.filter((s) => s.yours);
    this.status.textContent = !signedIn
      ? t("Sign in to seek a game: the same tile clicked by another player starts it.")
      : mine.length
        ? t("Looking for a game: {games}. Click the tile again to stop.", { games: mine.map((s) => setupWords(s.setup, " · ")).join("; ") })
        : "";
    if (!this.seeks.length) {
      clear(this.list, h("li", { class: "empty" }, t("None.")));
      return;
    }
    clear(this.list, ...this.seeks.map((s) => {
      const poster = s.players[0]?.id === currentAccount()?.id;
      let action;
      if (s.yours) action = h("button", { type: "button", class: "button seek-cancel", onclick: () => this.cancel(s.id) }, poster ? t("Cancel") : t("Leave"));
      else action = h("button", { type: "button", class: "button primary seek-take", disabled: !signedIn || !s.fits, onclick: () => this.take(s.id), title: s.fits ? null : signedIn ? t("Your rating is outside this seek's range") : t("Sign in to take a seek") }, t("Take"));
      const range = s.rating_range ? ` · ${t("ratings ±{range}", { range: s.rating_range })}` : "";
      const gathered = s.setup.players > 2
        ? ` · ${t("{count} of {players}: {names}", { count: s.players.length, players: s.setup.players, names: s.players.map(rated).join(", ") })}` : "";
      return h("li", { class: `game-entry seek-entry${s.yours ? " yours" : ""}`, "data-seek": s.id },
        action,
        h("span", { class: "game-name" }, rated(s.by), " ", kindTag(s.setup.rated)),
        h("span", { class: "game-meta" }, `${setupWords(s.setup, " · ", this.optionNames())}${range}${gathered}`));
    }));
  }
}

/** Whether a seek's setup is the game a tile seeks (its players, clock and kind). */
function sameSetup(setup, wanted) {
  const clock = setup.clock ? { ...setup.clock } : null;
  if (clock) delete clock.label;
  const rule = wanted.clock && wanted.clock.kind !== "none" ? wanted.clock : null;
  return setup.players === wanted.players && setup.rated === !!wanted.rated
    && JSON.stringify(clock && sortKeys(clock)) === JSON.stringify(rule && sortKeys(rule))
    && !(setup.expansions || []).length && !(setup.house_rules || []).length && setup.tiles_per_player === 12;
}

function sortKeys(object) {
  return Object.fromEntries(Object.entries(object).sort(([a], [b]) => a.localeCompare(b)));
}
