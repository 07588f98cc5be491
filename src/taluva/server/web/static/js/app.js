// Entry point: loads the server's configuration, then shows the lobby or a game by URL hash.

import { api } from "./api.js";
import { h, clear } from "./dom.js";
import { GamePage } from "./game.js";
import { Lobby } from "./lobby.js";
import { AccountBar, languageSwitch, loadAccount, onAccountChange } from "./account.js";
import { t, translatePage } from "./i18n.js";
import { LeaderboardPage } from "./leaderboard.js";
import { MyGamesPage } from "./mygames.js";
import { ProfilePage } from "./profile.js";
import { AccountSettingsPage, ConfirmEmailPage, ForgotPasswordPage, ResetPasswordPage, UnsubscribePage } from "./accountsettings.js";
import { RulesPage, parseRulesHash } from "./rules.js";
import { TutorialPage } from "./tutorial.js";
import { PuzzlesPage } from "./puzzles.js";
import "./pwa.js"; // the service worker: the installable app and its offline page

const root = document.getElementById("app");
// The pages that mailed links open (#/KIND/TOKEN): each page's name and class.
const LINK_PAGES = {
  confirm: ["confirm-email", ConfirmEmailPage],
  reset: ["reset-password", ResetPasswordPage],
  unsubscribe: ["unsubscribe", UnsubscribePage],
};
let page = null;
let config = null;
let configLoad = null; // the one request for the configuration, shared by every route() waiting
let routes = 0; // route() calls so far: only the last draws a page

async function route() {
  const mine = ++routes;
  if (!config) {
    try {
      config = await (configLoad ??= api("GET", "/api/config"));
    } catch (error) {
      configLoad = null;
      if (mine === routes) clear(root, h("p", { class: "fatal" }, t("The server cannot be reached: {error}", { error: error.message })));
      return;
    }
  }
  // Called again while the configuration loaded (the hash changed, the account was read):
  // the later call draws the page, or two pages would live at once.
  if (mine !== routes) return;
  page?.destroy();
  const match = location.hash.match(/^#\/game\/([A-Za-z0-9_-]{1,16})$/);
  const other = match ? null : accountPage(location.hash) ?? rulesPage(location.hash) ?? learnPage(location.hash);
  page = match ? new GamePage(root, match[1], config) : other ? other.page : new Lobby(root, config);
  document.body.dataset.page = match ? "game" : other ? other.name : "lobby";
  window.scrollTo(0, 0); // a new page starts at its top (the board), wherever the last one was
}

// The account views: My games, a player's profile, the leaderboard, the account's settings and
// its recovery by mail (null: another page).
function accountPage(hash) {
  if (hash === "#/my") return { name: "my-games", page: new MyGamesPage(root) };
  if (hash === "#/account") return { name: "account-settings", page: new AccountSettingsPage(root) };
  if (hash === "#/forgot") return { name: "forgot-password", page: new ForgotPasswordPage(root, config) };
  const link = hash.match(/^#\/(confirm|reset|unsubscribe)\/([A-Za-z0-9_.-]{1,1000})$/);
  if (link) {
    const [name, Page] = LINK_PAGES[link[1]];
    return { name, page: new Page(root, link[2]) };
  }
  if (hash === "#/leaderboard") return { name: "leaderboard", page: new LeaderboardPage(root, config) };
  const player = hash.match(/^#\/player\/(\d{1,12})$/);
  return player ? { name: "profile", page: new ProfilePage(root, player[1]) } : null;
}

// How to play: #/rules, #/rules/SECTION, #/rules/for/TOPIC, each with ?with=EXPANSIONS (null: another page).
function rulesPage(hash) {
  const where = parseRulesHash(hash);
  return where ? { name: "rules", page: new RulesPage(root, where) } : null;
}

// Learn to play: the guided first game (null: another page).
function learnPage(hash) {
  if (hash === "#/puzzles") return { name: "puzzles", page: new PuzzlesPage(root, config) };
  return hash === "#/learn" ? { name: "learn", page: new TutorialPage(root, config) } : null;
}

// The page's own words (index.html's, marked data-t) in the page's language; the language
// switch in the header.
translatePage(document);
document.getElementById("account-bar").before(languageSwitch());

window.addEventListener("hashchange", route);
new AccountBar(document.getElementById("account-bar"));
// signing in or out shows the page again: a game's socket then holds the account's seats
loadAccount().finally(() => { onAccountChange(() => route()); route(); });
