// The lobby: create a game (people, AI levels, options), list open, live and finished games.

import { ApiError, api, playerName, tokens } from "./api.js";
import { h, clear, toast } from "./dom.js";
import { t, tn } from "./i18n.js";
import { currentAccount } from "./account.js";
import { clockRule } from "./clock.js";
import { hosts } from "./resign.js";
import { kindTag, withRating } from "./ratings.js";
import { SeeksPanel } from "./seeks.js";
import { FirstGame } from "./firstgame.js";
import { rememberGames } from "./pwa.js";

/** The games of `games` (all of `status`) this browser holds seats in, as the offline page
 * lists them (the lobby's entries do not say whose turn it is). */
function heldGames(games, status) {
  const mine = tokens.all();
  return games.filter((g) => mine[g.id]).map((g) => ({
    id: g.id,
    name: g.name,
    opponents: g.players.filter((p) => !(p.seat in mine[g.id])).map((p) => (p.taken ? p.name : t("(free)"))),
    situation: status === "open" ? t("Waiting for players") : status === "finished" ? t("Finished")
      : tn("Playing: {n} move made", "Playing: {n} moves made", g.ply),
  }));
}

/** The seat choices: people, then every AI level of the server's table (/api/config). */
function seatChoices(config) {
  return [
    ["you", t("You (this browser)")],
    ["human", t("Another person (free seat)")],
    ...config.levels.map((level, i) => [`ai:${level}`, t("AI level {level} ({title})", { level, title: config.level_titles[i] })]),
  ];
}

const EXPANSION_NAMES = { ships: t("Ships"), double_hex: t("Double-hex tiles") };
const HOUSE_RULE_NAMES = {
  adjacent_hut: t("A new hut may stand next to your own buildings"),
  all_tiles: t("Play with every tile in the box"),
};

export class Lobby {
  constructor(root, config) {
    this.root = root;
    this.config = config;
    this.seats = ["you", "ai:2"];
    this.names = [currentAccount()?.name || playerName.get(), ""];
    this.build();
    this.refresh();
    this.timer = setInterval(() => this.refresh(), 5000);
  }

  destroy() {
    clearInterval(this.timer);
    this.seeks?.destroy();
  }

  build() {
    this.seatBox = h("div", { class: "seats" });
    this.gameName = h("input", { id: "game-name", maxlength: 160, placeholder: t("e.g. Thursday club"), "aria-label": t("Game name") });
    this.tiles = h("select", { id: "tiles-per-player", "aria-label": t("Tiles per player") });
    this.hints = h("input", { type: "checkbox", id: "hints", checked: true });
    this.clock = h("select", { id: "clock", "aria-label": t("Clock"), onchange: () => this.clockChosen() },
      ...(this.config.clocks || []).map((preset, i) => h("option", { value: i }, preset.label)));
    this.rated = h("input", { type: "checkbox", id: "rated", onchange: () => this.ratedChosen() });
    this.ratedNote = h("span", { class: "hint-line", id: "rated-note" });
    const zones = this.config.expansions.filter((e) => e.startsWith("board:"));
    this.zone = h("select", { id: "zone", "aria-label": t("Game board zone") },
      h("option", { value: "" }, t("No board (unlimited island)")),
      ...zones.map((z) => h("option", { value: z }, t("Board: {zone}", { zone: z.slice(6) }))));
    this.expansions = this.config.expansions.filter((e) => !e.startsWith("board:")).map((name) =>
      h("label", { class: "check" }, h("input", { type: "checkbox", value: name, class: "expansion" }), EXPANSION_NAMES[name] || name));
    this.houseRules = this.config.house_rules.map((name) =>
      h("label", { class: "check" }, h("input", { type: "checkbox", value: name, class: "house-rule" }), HOUSE_RULE_NAMES[name] || name));
    const counts = this.config.player_counts;
    const form = h("form", { class: "create", onsubmit: (e) => { e.preventDefault(); this.create(); } },
      h("h2", {}, t("New game")),
      h("label", { for: "game-name" }, t("Name")), this.gameName,
      h("fieldset", {}, h("legend", {}, t("Seats ({least} to {most})", { least: Math.min(...counts), most: Math.max(...counts) })), this.seatBox,
        h("div", { class: "row" },
          h("button", { type: "button", id: "add-seat", onclick: () => this.changeSeats(1) }, t("+ Seat")),
          h("button", { type: "button", id: "remove-seat", onclick: () => this.changeSeats(-1) }, t("− Seat")))),
      h("fieldset", {}, h("legend", {}, t("Options")),
        h("label", { for: "tiles-per-player" }, t("Tiles per player")), this.tiles,
        h("label", { for: "clock" }, t("Clock")), this.clock,
        h("label", { class: "check" }, this.rated, t("Rated")), this.ratedNote,
        ...(zones.length ? [h("label", { for: "zone" }, t("Game board")), this.zone] : []),
        ...this.expansions, ...this.houseRules,
        h("label", { class: "check" }, this.hints, t("Allow the AI hint button"))),
      h("button", { type: "submit", class: "primary big", id: "create" }, t("Create game")));
    this.lists = {
      open: h("ul", { class: "games", id: "open-games" }),
      live: h("ul", { class: "games", id: "live-games" }),
      idle: h("ul", { class: "games", id: "idle-games" }),
      finished: h("ul", { class: "games", id: "finished-games" }),
    };
    // A newcomer's first minute (js/firstgame.js): learn to play, or play the computer at once.
    clear(this.root, new FirstGame(this.config).node, h("div", { class: "lobby" },
      form,
      h("section", { class: "lists" },
        this.seeksBox = h("div", { class: "finding", id: "finding" }),
        h("h2", {}, t("Open games")), h("p", { class: "hint-line" }, t("Waiting for players: take a free seat.")), this.lists.open,
        h("h2", {}, t("Playing now")), this.lists.live,
        h("h2", {}, t("Waiting for a move")), h("p", { class: "hint-line" }, t("No move for a day or more.")), this.lists.idle,
        h("h2", {}, t("Finished")), this.lists.finished)));
    this.renderSeats();
    this.ratedChosen(false);
    this.seeks = new SeeksPanel(this.seeksBox, this.config, { expansions: EXPANSION_NAMES, houseRules: HOUSE_RULE_NAMES });
  }

  /** The chosen clock preset (none is a preset too). */
  preset() {
    return (this.config.clocks || [])[Number(this.clock.value)];
  }

  /** A clock chosen: a signed-in player's game with a clock is rated unless they said casual;
   * no clock makes it casual. */
  clockChosen() {
    const timed = this.preset() && this.preset().kind !== "none";
    if (!timed) this.rated.checked = false;
    else if (!this.casualChosen && currentAccount()) this.rated.checked = true;
    this.ratedChosen(false);
  }

  /** Rated ticked or unticked (`byHand` when the player did it): a rated game needs a clock
   * (the first real-time preset is chosen if there is none) and a signed-in player, and has
   * no hints. */
  ratedChosen(byHand = true) {
    const signedIn = !!currentAccount();
    this.rated.disabled = !signedIn;
    if (!signedIn) this.rated.checked = false;
    if (byHand && signedIn) this.casualChosen = !this.rated.checked;
    if (this.rated.checked && (!this.preset() || this.preset().kind === "none")) {
      const timed = (this.config.clocks || []).findIndex((p) => p.kind === "fischer");
      if (timed >= 0) this.clock.value = String(timed);
    }
    this.hints.disabled = this.rated.checked;
    this.ratedNote.textContent = !signedIn
      ? t("Sign in to play rated games.")
      : this.rated.checked ? t("Ratings change with the result; rated games have a clock and no hints.") : "";
  }

  renderSeats() {
    const rows = this.seats.map((choice, i) => {
      const select = h("select", { "aria-label": t("Seat {n}", { n: i + 1 }), class: "seat-kind", onchange: (e) => { this.seats[i] = e.target.value; this.renderSeats(); } },
        ...seatChoices(this.config).map(([value, label]) => h("option", { value, selected: value === choice }, label)));
      const name = choice === "you" || choice === "human"
        ? h("input", {
          class: "seat-name", maxlength: 160, value: this.names[i] || "", "aria-label": t("Seat {n} name", { n: i + 1 }),
          placeholder: choice === "you" ? t("your name") : t("name (optional)"),
          oninput: (e) => { this.names[i] = e.target.value; },
        })
        : null;
      return h("div", { class: "seat-row" }, h("span", { class: "seat-number" }, `${i + 1}.`), select, name);
    });
    clear(this.seatBox, ...rows);
    const two = this.seats.length === 2;
    const current = this.tiles.value || "12";
    clear(this.tiles, ...this.config.tiles_per_player.filter((n) => two || n === 12)
      .map((n) => h("option", { value: n, selected: String(n) === current }, String(n))));
  }

  changeSeats(step) {
    const count = this.seats.length + step;
    if (!this.config.player_counts.includes(count)) return;
    if (step > 0) { this.seats.push("ai:2"); this.names.push(""); } else { this.seats.pop(); this.names.pop(); }
    this.renderSeats();
  }

  async create() {
    const seats = this.seats.map((choice, i) => {
      if (choice.startsWith("ai:")) return { kind: "ai", level: Number(choice.slice(3)) };
      return { kind: "human", name: this.names[i] || null, take: choice === "you" };
    });
    const expansions = [...this.root.querySelectorAll(".expansion:checked")].map((e) => e.value);
    if (this.zone.value) expansions.push(this.zone.value);
    const body = {
      name: this.gameName.value || null,
      seats,
      tiles_per_player: Number(this.tiles.value || 12),
      expansions,
      house_rules: [...this.root.querySelectorAll(".house-rule:checked")].map((e) => e.value),
      hints: this.hints.checked && !this.rated.checked,
      rated: this.rated.checked,
    };
    const preset = this.preset();
    if (preset && preset.kind !== "none") {
      const { label, ...clock } = preset;
      body.clock = clock;
    }
    const you = this.seats.indexOf("you");
    if (you >= 0 && this.names[you]) playerName.set(this.names[you]);
    try {
      const reply = await api("POST", "/api/games", body);
      for (const { seat, token } of reply.tokens) tokens.add(reply.game.id, seat, token);
      if (reply.host_token) hosts.add(reply.game.id, reply.host_token);
      location.hash = `#/game/${reply.game.id}`;
    } catch (error) {
      toast(error instanceof ApiError ? error.message : String(error), "error");
    }
  }

  async refresh() {
    const held = [];
    let complete = true;
    for (const status of ["open", "live", "finished"]) {
      try {
        const { games } = await api("GET", `/api/games?status=${status}&limit=30`);
        held.push(...heldGames(games, status));
        if (status === "live") {
          const idle = (g) => Date.now() - Date.parse(g.updated_at) > this.config.idle_after * 1000;
          this.renderList("live", games.filter((g) => !idle(g)));
          this.renderList("idle", games.filter(idle), "live");
        } else {
          this.renderList(status, games);
        }
      } catch (error) {
        complete = false;
        clear(this.lists[status], h("li", { class: "empty" }, t("Cannot load: {error}", { error: error.message })));
      }
    }
    if (complete) rememberGames("lobby", held);
  }

  /** Fill the list `name` with `games` of `status` (by default the list's own). */
  renderList(name, games, status = name) {
    const list = this.lists[name];
    if (!games.length) {
      clear(list, h("li", { class: "empty" }, t("None.")));
      return;
    }
    const mine = tokens.all();
    clear(list, ...games.map((g) => {
      const players = g.players.map(withRating).join(", ");
      const options = [...g.options.expansions.map((e) => EXPANSION_NAMES[e] || e), ...g.options.house_rules.map((r) => HOUSE_RULE_NAMES[r] || r)].join(", ");
      const label = status === "finished" ? t("Replay") : mine[g.id] ? t("Continue") : status === "open" ? t("Join") : t("Watch");
      return h("li", { class: "game-entry", "data-game": g.id },
        h("a", { href: `#/game/${encodeURIComponent(g.id)}`, class: "button" }, label),
        h("span", { class: "game-name" }, g.name, " ", kindTag(g.rated)),
        h("span", { class: "game-players" }, players),
        h("span", { class: "game-meta" }, [tn("{n} move", "{n} moves", g.ply), options, g.clock ? clockRule(g.clock) : ""].filter(Boolean).join(" · ")));
    }));
  }
}
