// Ratings as people read them: "1512", "1500?" while provisional, and a finished rated game's
// changes on its end screen ("Ana 1500 → 1524 (+24)").

import { api } from "./api.js";
import { h, clear } from "./dom.js";
import { t } from "./i18n.js";

/** A rating as shown: the number, with "?" while it is provisional. */
export function ratingText(rating, provisional) {
  return `${rating}${provisional ? "?" : ""}`;
}

/** "+24", "−24" or "±0". */
export function changeText(change) {
  if (change > 0) return `+${change}`;
  if (change < 0) return `−${-change}`;
  return "±0";
}

/** A lobby entry's player: the name, then the rating in brackets when the seat has one. */
export function withRating(player) {
  if (!player.taken) return t("(free)");
  return player.rating == null ? player.name : `${player.name} (${ratingText(player.rating, player.provisional)})`;
}

/** "Rated" or "Casual", as a tag whose title says what that means. */
export function kindTag(rated) {
  return h("span", {
    class: `tag game-kind ${rated ? "rated" : "casual"}`,
    title: rated ? t("Rated: the result changes the players' ratings; no hints, no win chances.") : t("Casual: no rating changes."),
  }, rated ? t("Rated") : t("Casual"));
}

/** The rating changes of a finished rated game, fetched once and shown under its result. */
export class RatingChanges {
  constructor(gameId) {
    this.gameId = gameId;
    this.node = h("p", { class: "rating-changes", "aria-label": t("Rating changes") });
    this.asked = false;
  }

  /** Show the changes in `banner` once state `s` is a finished rated game. */
  async show(s, banner) {
    if (!s.result || !s.rated || s.status !== "finished" || !s.result.ranking.length) return;
    if (!banner.contains(this.node)) banner.append(this.node);
    if (this.asked) return;
    this.asked = true;
    try {
      const { seats } = await api("GET", `/api/games/${encodeURIComponent(this.gameId)}/ratings`);
      clear(this.node, ...seats.map((seat) => h("span", { class: "rating-change", "data-seat": seat.seat },
        `${seat.name} ${seat.before ?? "?"} → ${ratingText(seat.after, seat.provisional)}`,
        seat.change == null ? "" : ` (${changeText(seat.change)})`)));
    } catch (error) {
      this.asked = false; // asked again with the next state
      this.node.textContent = t("Rating changes cannot be loaded: {error}", { error: error.message });
    }
  }
}
