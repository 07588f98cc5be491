// Accounts in the page header: sign up, sign in and out in a dialog, and who is signed in
// for the other views. The session itself is an HTTP-only cookie this script never sees.

import { ApiError, api } from "./api.js";
import { h, clear, toast } from "./dom.js";
import { chooseLanguage, lang, languages, t, tn } from "./i18n.js";

let current = null;
const listeners = new Set();

/** The signed-in account ({id, name}) or null for a guest. */
export function currentAccount() {
  return current;
}

/** Call `listener(account)` whenever someone signs in or out; returns a function that stops. */
export function onAccountChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function setAccount(account) {
  const changed = (current?.id ?? null) !== (account?.id ?? null);
  current = account;
  if (changed) for (const listener of listeners) listener(account);
}

/** Ask the server who is signed in on this browser. */
export async function loadAccount() {
  try {
    const { account } = await api("GET", "/api/session");
    setAccount(account);
  } catch {
    setAccount(null);
  }
  return current;
}

/** The header's account controls: links and buttons, and the sign-in/sign-up dialog. */
export class AccountBar {
  constructor(node) {
    this.node = node;
    this.dialog = null;
    onAccountChange(() => this.render());
    this.render();
  }

  render() {
    const board = h("a", { href: "#/leaderboard", class: "button", id: "leaderboard-link" }, t("Leaderboard"));
    if (current) {
      clear(this.node,
        h("a", { href: "#/my", class: "button", id: "my-games-link" }, t("My games")),
        board,
        h("a", { href: `#/player/${encodeURIComponent(current.id)}`, class: "account-name", id: "account-name", title: t("Your profile") }, current.name),
        h("a", { href: "#/account", class: "button", id: "account-settings-link" }, t("Account settings")),
        h("button", { type: "button", id: "sign-out", onclick: () => this.signOut() }, t("Sign out")));
    } else {
      clear(this.node,
        board,
        h("button", { type: "button", id: "sign-in", onclick: () => this.open("in") }, t("Sign in")),
        h("button", { type: "button", id: "sign-up", onclick: () => this.open("up") }, t("Sign up")));
    }
  }

  open(mode) {
    this.dialog?.remove();
    const signUp = mode === "up";
    const name = h("input", {
      id: "account-name-input", name: "username", autocomplete: "username", required: true,
      maxlength: 160, spellcheck: "false", autocapitalize: "none",
    });
    const password = h("input", {
      id: "account-password", name: "password", type: "password", required: true,
      minlength: signUp ? 8 : null, maxlength: 200,
      autocomplete: signUp ? "new-password" : "current-password",
    });
    const problem = h("p", { class: "form-error", role: "alert", id: "account-error" });
    const submit = h("button", { type: "submit", class: "primary", id: "account-submit" }, signUp ? t("Sign up") : t("Sign in"));
    const close = () => { dialog.close(); dialog.remove(); this.dialog = null; };
    const form = h("form", { class: "account-form", method: "dialog", onsubmit: (event) => { event.preventDefault(); this.submit(mode, name, password, problem, submit, close); } },
      h("h2", {}, signUp ? t("Create an account") : t("Sign in")),
      h("label", { for: "account-name-input" }, t("Name")), name,
      h("label", { for: "account-password" }, t("Password")), password,
      signUp ? h("p", { class: "hint-line" }, t("Your name is public: it appears on the leaderboard and your profile. The password needs at least 8 characters.")) : null,
      signUp ? null : h("button", { type: "button", class: "link", id: "forgot-password", onclick: () => { close(); location.hash = "#/forgot"; } }, t("Forgot your password?")),
      problem,
      h("div", { class: "row" }, submit,
        h("button", { type: "button", id: "account-cancel", onclick: close }, t("Cancel"))),
      h("p", { class: "hint-line" },
        signUp ? t("Already have an account?") : t("No account yet?"), " ",
        h("button", { type: "button", class: "link", onclick: () => { close(); this.open(signUp ? "in" : "up"); } },
          signUp ? t("Sign in") : t("Sign up"))));
    const dialog = h("dialog", { class: "account-dialog", "aria-labelledby": "account-title" }, form);
    form.querySelector("h2").id = "account-title";
    dialog.addEventListener("close", () => { dialog.remove(); if (this.dialog === dialog) this.dialog = null; });
    document.body.appendChild(dialog);
    this.dialog = dialog;
    dialog.showModal();
    name.focus();
  }

  async submit(mode, name, password, problem, submit, close) {
    problem.textContent = "";
    submit.disabled = true;
    try {
      const path = mode === "up" ? "/api/accounts" : "/api/session";
      const answer = await api("POST", path, { name: name.value, password: password.value });
      const account = answer.account;
      close();
      setAccount(account);
      const failed = answer.failed_sign_ins || 0;
      if (failed) {
        toast(tn("Signed in as {name}. A wrong password was given for this name once since your last sign-in.",
          "Signed in as {name}. A wrong password was given for this name {n} times since your last sign-in.",
          failed, { name: account.name }), "error");
      } else {
        toast(mode === "up" ? t("Welcome, {name}!", { name: account.name }) : t("Signed in as {name}", { name: account.name }));
      }
    } catch (error) {
      problem.textContent = error instanceof ApiError ? sentence(error.message) : String(error);
      password.select();
    } finally {
      submit.disabled = false;
    }
  }

  async signOut() {
    try {
      await api("DELETE", "/api/session");
      setAccount(null);
      toast(t("Signed out"));
    } catch (error) {
      toast(error instanceof ApiError ? error.message : String(error), "error");
    }
  }
}

/** The header's language switch: each shipped language named in itself; a choice is kept by
 * the account when signed in (PUT /api/account/language), and by a cookie in any case. */
export function languageSwitch(id = "language-switch") {
  const select = h("select", { id, class: "language-switch", "aria-label": t("Language"), title: t("Language"),
    onchange: () => saveLanguage(select.value) },
  ...Object.entries(languages).map(([code, name]) => h("option", { value: code, lang: code, selected: code === lang }, name)));
  return select;
}

/** Speak `code` from now on: the account's setting when signed in (a server without the
 * setting still has the cookie), then the page again in it. */
export async function saveLanguage(code) {
  if (current) {
    try {
      await api("PUT", "/api/account/language", { language: code });
    } catch {
      // the cookie alone still chooses the language on this browser
    }
  }
  chooseLanguage(code);
}

function sentence(text) {
  return text ? text[0].toUpperCase() + text.slice(1) + (text.endsWith(".") ? "" : ".") : "";
}
