// The account's own pages: its settings (#/account: the e-mail address that recovers it, the
// mails it wants, changing the password), the link mailed to a new address (#/confirm/TOKEN),
// asking for a password reset (#/forgot), setting a new password from the mailed link
// (#/reset/TOKEN), and turning a kind of mail off from a mail's link (#/unsubscribe/TOKEN).

import { ApiError, api } from "./api.js";
import { currentAccount, languageSwitch, loadAccount } from "./account.js";
import { h, clear, sentenceWith, toast } from "./dom.js";
import { t } from "./i18n.js";
import { mountPushSettings } from "./pushsettings.js";

const PASSWORD_LENGTH = { minlength: 8, maxlength: 200 };

function message(error) {
  const text = error instanceof ApiError ? error.message : String(error);
  return text ? text[0].toUpperCase() + text.slice(1) + (text.endsWith(".") ? "" : ".") : "";
}

/** A form of labelled fields whose submit button stays disabled while `send` runs; what
 * `send` throws is shown in the form. Returns the form. */
function form(id, title, fields, label, send) {
  const problem = h("p", { class: "form-error", role: "alert", id: `${id}-error` });
  const submit = h("button", { type: "submit", class: "primary", id: `${id}-submit` }, label);
  const node = h("form", {
    class: "account-form settings-form", id,
    onsubmit: async (event) => {
      event.preventDefault();
      problem.textContent = "";
      submit.disabled = true;
      try {
        await send();
      } catch (error) {
        problem.textContent = message(error);
      } finally {
        submit.disabled = false;
      }
    },
  }, title ? h("h2", {}, title) : null, ...fields, problem, h("div", { class: "row" }, submit));
  return node;
}

/** A mail switch's words, one whole sentence per kind (the server's own words for a kind
 * this page does not know). */
function mailSwitchWords(kind, about) {
  switch (kind) {
    case "move": return t("Mail me your move in a turn-based game");
    case "challenge": return t("Mail me a challenge from another player");
    case "rematch": return t("Mail me a rematch offered after a game you played");
    case "end": return t("Mail me the result of a game you played, when it ends");
    case "clock": return t("Mail me a turn-based game's clock about to run out on your turn");
    default: return t("Mail me: {about}", { about });
  }
}

function field(id, label, attrs) {
  return [h("label", { for: id }, label), h("input", { id, name: id, required: true, ...attrs })];
}

export class AccountSettingsPage {
  constructor(root) {
    this.root = root;
    this.status = h("p", { class: "hint-line", role: "status", "aria-live": "polite", id: "settings-status" });
    this.email = h("section", { class: "my-section", id: "settings-email" });
    this.switches = h("section", { class: "my-section", id: "settings-switches" });
    this.password = h("section", { class: "my-section", id: "settings-password" });
    clear(root, h("div", { class: "account-page" }, h("h1", {}, t("Account settings")), this.status, this.languageChoice(), this.email, this.switches, this.password));
    this.load();
    mountPushSettings(this.password);
  }

  destroy() {}

  /** The language of the site, the same choice as the header's switch. */
  languageChoice() {
    return h("section", { class: "my-section", id: "settings-language" },
      h("h2", {}, t("Language")),
      h("label", { for: "settings-language-choice" }, t("The language of this site, for you on every device:")),
      " ", languageSwitch("settings-language-choice"));
  }

  async load() {
    if (!currentAccount()) {
      this.status.textContent = t("Sign in (at the top of the page) to see your account's settings.");
      return;
    }
    try {
      this.show(await api("GET", "/api/account"));
    } catch (error) {
      this.status.textContent = message(error);
    }
  }

  show(settings) {
    const { address, pending } = settings.email;
    const lines = [];
    if (address) lines.push(h("p", { id: "email-address" }, ...sentenceWith(t("Your e-mail address: {address} (confirmed). Nobody else sees it."), { address: h("strong", {}, address) })));
    if (pending) lines.push(h("p", { id: "email-pending" }, ...sentenceWith(t("Waiting for confirmation: {address}. Follow the link in the mail sent to it."), { address: h("strong", {}, pending) })));
    if (!address && !pending) lines.push(h("p", { class: "hint-line" }, t("No e-mail address: if you forget your password, the account cannot be recovered.")));
    const change = settings.mail
      ? this.emailForm(address || pending ? t("Use another address") : t("Add an address"))
      : h("p", { class: "hint-line", id: "mail-off" }, t("This server sends no e-mail (its host has not set up a mail server), so an address cannot be added here."));
    const remove = address || pending
      ? h("button", { type: "button", id: "email-remove", onclick: () => this.removeEmail() }, t("Remove the address"))
      : null;
    clear(this.email, h("h2", {}, t("E-mail")), ...lines, change, remove);
    clear(this.switches, ...(settings.mail && settings.switches.length ? [h("h2", {}, t("Mails")),
      h("p", { class: "hint-line", id: "mail-switches-hint" }, address
        ? t("Mails go to your confirmed address; those about a game only while you have no page of it open.")
        : t("Mails go to your address once it is confirmed; those about a game only while you have no page of it open.")),
      ...settings.switches.map((entry) => this.switchBox(entry))] : []));
    clear(this.password, this.passwordForm());
  }

  switchBox({ kind, about, on }) {
    const box = h("input", { type: "checkbox", id: `mail-${kind}`, checked: on,
      onchange: async () => {
        box.disabled = true;
        try {
          this.show(await api("PUT", "/api/account/mail-switches", { kind, on: box.checked }));
        } catch (error) {
          box.checked = !box.checked;
          toast(message(error), "error");
        } finally {
          box.disabled = false;
        }
      } });
    return h("label", { class: "switch-line", for: `mail-${kind}` }, box, " ", mailSwitchWords(kind, about));
  }

  emailForm(label) {
    const [emailLabel, email] = field("email-input", t("E-mail address"), { type: "email", autocomplete: "email", maxlength: 254 });
    return form("email-form", null, [emailLabel, email], label, async () => {
      this.show(await api("PUT", "/api/account/email", { email: email.value }));
      toast(t("A link to confirm the address is on its way to {address}.", { address: email.value }));
    });
  }

  async removeEmail() {
    try {
      this.show(await api("DELETE", "/api/account/email"));
      toast(t("The e-mail address is removed."));
    } catch (error) {
      toast(message(error), "error");
    }
  }

  passwordForm() {
    const [oldLabel, old] = field("current-password", t("Current password"), { type: "password", autocomplete: "current-password", maxlength: 200 });
    const [newLabel, fresh] = field("new-password", t("New password"), { type: "password", autocomplete: "new-password", ...PASSWORD_LENGTH });
    const node = form("password-form", t("Change the password"), [oldLabel, old, newLabel, fresh,
      h("p", { class: "hint-line" }, t("Every other browser signed in to your account is signed out."))], t("Change the password"), async () => {
      await api("POST", "/api/account/password", { password: old.value, new_password: fresh.value });
      node.reset();
      toast(t("Password changed. Your other browsers are signed out."));
    });
    return node;
  }
}

export class ConfirmEmailPage {
  constructor(root, token) {
    this.status = h("p", { role: "status", id: "confirm-status" }, t("Confirming the address…"));
    clear(root, h("div", { class: "account-page" }, h("h1", {}, t("Confirm your e-mail address")), this.status));
    api("POST", "/api/account/email/confirm", { token })
      .then(({ email }) => { this.status.textContent = t("Your address {address} is confirmed: a forgotten password can be reset through it.", { address: email }); })
      .catch((error) => { this.status.textContent = message(error); });
  }

  destroy() {}
}

export class ForgotPasswordPage {
  constructor(root, config) {
    if (!config.mail) {
      clear(root, h("div", { class: "account-page narrow-page" }, h("h1", {}, t("Forgot your password?")),
        h("p", { id: "mail-off" }, t("This server sends no e-mail (its host has not set up a mail server), so a password cannot be reset by mail here."))));
      return;
    }
    const [emailLabel, email] = field("forgot-email", t("Your account's confirmed e-mail address"), { type: "email", autocomplete: "email", maxlength: 254 });
    const done = h("p", { role: "status", id: "forgot-status", "aria-live": "polite" });
    const node = form("forgot-form", null, [emailLabel, email], t("Send me a link"), async () => {
      const answer = await api("POST", "/api/password-reset", { email: email.value });
      done.textContent = message(answer.message);
    });
    clear(root, h("div", { class: "account-page narrow-page" }, h("h1", {}, t("Forgot your password?")),
      h("p", {}, t("A link to set a new password is mailed to the address your account confirmed.")), node, done));
  }

  destroy() {}
}

export class ResetPasswordPage {
  constructor(root, token) {
    const [label, password] = field("reset-password", t("New password"), { type: "password", autocomplete: "new-password", ...PASSWORD_LENGTH });
    const node = form("reset-form", null, [label, password,
      h("p", { class: "hint-line" }, t("At least 8 characters. Every browser signed in to the account is signed out, and this one signs in."))],
    t("Set the password"), async () => {
      const { account } = await api("POST", "/api/password-reset/new", { token, password: password.value });
      toast(t("Your new password is set. Signed in as {name}.", { name: account.name }));
      location.hash = "#/";
      await loadAccount();
    });
    clear(root, h("div", { class: "account-page narrow-page" }, h("h1", {}, t("Set a new password")), node));
  }

  destroy() {}
}

export class UnsubscribePage {
  constructor(root, token) {
    const status = h("p", { role: "status", id: "unsubscribe-status", "aria-live": "polite" });
    const button = h("button", { type: "button", class: "primary", id: "unsubscribe",
      onclick: async () => {
        button.disabled = true;
        try {
          await api("POST", `/api/mail/unsubscribe?token=${encodeURIComponent(token)}`);
          button.remove();
          status.textContent = t("Done: these mails are off. Account settings turns them on again.");
        } catch (error) {
          status.textContent = message(error);
          button.disabled = false;
        }
      } }, t("Turn these mails off"));
    clear(root, h("div", { class: "account-page narrow-page" }, h("h1", {}, t("Turn mails off")),
      h("p", {}, t("Stop the mails of this kind that the link came with?")), button, status));
  }

  destroy() {}
}
