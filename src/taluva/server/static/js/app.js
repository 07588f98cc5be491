// Entry point: loads the server's configuration, then shows the lobby or a game by URL hash.

import { api } from "./api.js";
import { h, clear } from "./dom.js";
import { GamePage } from "./game.js";
import { Lobby } from "./lobby.js";

const root = document.getElementById("app");
let page = null;
let config = null;

async function route() {
  if (!config) {
    try {
      config = await api("GET", "/api/config");
    } catch (error) {
      clear(root, h("p", { class: "fatal" }, `The server cannot be reached: ${error.message}`));
      return;
    }
  }
  page?.destroy();
  const match = location.hash.match(/^#\/game\/([A-Za-z0-9_-]{1,16})$/);
  page = match ? new GamePage(root, match[1], config) : new Lobby(root, config);
  document.body.dataset.page = match ? "game" : "lobby";
}

window.addEventListener("hashchange", route);
route();
