// Accounts in the page header: sign up, sign in and out in a dialog, and who is signed in
// for the other views. The session itself is an HTTP-only cookie this script never sees.

import { ApiError, api } from "./api.js";
import { h, clear, toast } from "./dom.js";

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
    const board = h("a", { href: "#/leaderboard", class: "button", id: "leaderboard-link" }, "Leaderboard");
    if (current) {
      clear(this.node,
        h("a", { href: "#/my", class: "button", id: "my-games-link" }, "My games"),
        board,
        h("a", { href: `#/player/${encodeURIComponent(current.id)}`, class: "account-name", id: "account-name", title: "Your profile" }, current.name),
        h("a", { href: "#/account", class: "button", id: "account-settings-link" }, "Account settings"),
        h("button", { type: "button", id: "sign-out", onclick: () => this.signOut() }, "Sign out"));
    } else {
      clear(this.node,
        board,
        h("button", { type: "button", id: "sign-in", onclick: () => this.open("in") }, "Sign in"),
        h("button", { type: "button", id: "sign-up", onclick: () => this.open("up") }, "Sign up"));
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
    const submit = h("button", { type: "submit", class: "primary", id: "account-submit" }, signUp ? "Sign up" : "Sign in");
    const close = () => { dialog.close(); dialog.remove(); this.dialog = null; };
    const form = h("form", { class: "account-form", method: "dialog", onsubmit: (event) => { event.preventDefault(); this.submit(mode, name, password, problem, submit, close); } },
      h("h2", {}, signUp ? "Create an account" : "Sign in"),
      h("label", { for: "account-name-input" }, "Name"), name,
      h("label", { for: "account-password" }, "Password"), password,
      signUp ? h("p", { class: "hint-line" }, "Your name is public: it appears on the leaderboard and your profile. The password needs at least 8 characters.") : null,
      signUp ? null : h("button", { type: "button", class: "link", id: "forgot-password", onclick: () => { close(); location.hash = "#/forgot"; } }, "Forgot your password?"),
      problem,
      h("div", { class: "row" }, submit,
        h("button", { type: "button", id: "account-cancel", onclick: close }, "Cancel")),
      h("p", { class: "hint-line" },
        signUp ? "Already have an account? " : "No account yet? ",
        h("button", { type: "button", class: "link", onclick: () => { close(); this.open(signUp ? "in" : "up"); } },
          signUp ? "Sign in" : "Sign up")));
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
        const times = failed === 1 ? "once" : `${failed} times`;
        toast(`Signed in as ${account.name}. A wrong password was given for this name ${times} since your last sign-in.`, "error");
      } else {
        toast(mode === "up" ? `Welcome, ${account.name}!` : `Signed in as ${account.name}`);
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
      toast("Signed out");
    } catch (error) {
      toast(error instanceof ApiError ? error.message : String(error), "error");
    }
  }
}

function sentence(text) {
  return text ? text[0].toUpperCase() + text.slice(1) + (text.endsWith(".") ? "" : ".") : "";
}
