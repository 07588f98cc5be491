// The account's own pages: its settings (#/account: the e-mail address that recovers it, the
// mails it wants, changing the password), the link mailed to a new address (#/confirm/TOKEN),
// asking for a password reset (#/forgot), setting a new password from the mailed link
// (#/reset/TOKEN), and turning a kind of mail off from a mail's link (#/unsubscribe/TOKEN).

import { ApiError, api } from "./api.js";
import { currentAccount, loadAccount } from "./account.js";
import { h, clear, toast } from "./dom.js";
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
    clear(root, h("div", { class: "account-page" }, h("h1", {}, "Account settings"), this.status, this.email, this.switches, this.password));
    this.load();
    mountPushSettings(this.password);
  }

  destroy() {}

  async load() {
    if (!currentAccount()) {
      this.status.textContent = "Sign in (at the top of the page) to see your account's settings.";
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
    if (address) lines.push(h("p", { id: "email-address" }, "Your e-mail address: ", h("strong", {}, address), " (confirmed). Nobody else sees it."));
    if (pending) lines.push(h("p", { id: "email-pending" }, "Waiting for confirmation: ", h("strong", {}, pending), ". Follow the link in the mail sent to it."));
    if (!address && !pending) lines.push(h("p", { class: "hint-line" }, "No e-mail address: if you forget your password, the account cannot be recovered."));
    const change = settings.mail
      ? this.emailForm(address || pending ? "Use another address" : "Add an address")
      : h("p", { class: "hint-line", id: "mail-off" }, "This server sends no e-mail (its host has not set up a mail server), so an address cannot be added here.");
    const remove = address || pending
      ? h("button", { type: "button", id: "email-remove", onclick: () => this.removeEmail() }, "Remove the address")
      : null;
    clear(this.email, h("h2", {}, "E-mail"), ...lines, change, remove);
    clear(this.switches, ...(settings.mail && settings.switches.length ? [h("h2", {}, "Mails"),
      h("p", { class: "hint-line", id: "mail-switches-hint" }, (address ? "Mails go to your confirmed address" : "Mails go to your address once it is confirmed")
        + "; those about a game only while you have no page of it open."),
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
    return h("label", { class: "switch-line", for: `mail-${kind}` }, box, ` Mail me ${about}`);
  }

  emailForm(label) {
    const [emailLabel, email] = field("email-input", "E-mail address", { type: "email", autocomplete: "email", maxlength: 254 });
    return form("email-form", null, [emailLabel, email], label, async () => {
      this.show(await api("PUT", "/api/account/email", { email: email.value }));
      toast(`A link to confirm the address is on its way to ${email.value}.`);
    });
  }

  async removeEmail() {
    try {
      this.show(await api("DELETE", "/api/account/email"));
      toast("The e-mail address is removed.");
    } catch (error) {
      toast(message(error), "error");
    }
  }

  passwordForm() {
    const [oldLabel, old] = field("current-password", "Current password", { type: "password", autocomplete: "current-password", maxlength: 200 });
    const [newLabel, fresh] = field("new-password", "New password", { type: "password", autocomplete: "new-password", ...PASSWORD_LENGTH });
    const node = form("password-form", "Change the password", [oldLabel, old, newLabel, fresh,
      h("p", { class: "hint-line" }, "Every other browser signed in to your account is signed out.")], "Change the password", async () => {
      await api("POST", "/api/account/password", { password: old.value, new_password: fresh.value });
      node.reset();
      toast("Password changed. Your other browsers are signed out.");
    });
    return node;
  }
}

export class ConfirmEmailPage {
  constructor(root, token) {
    this.status = h("p", { role: "status", id: "confirm-status" }, "Confirming the address…");
    clear(root, h("div", { class: "account-page" }, h("h1", {}, "Confirm your e-mail address"), this.status));
    api("POST", "/api/account/email/confirm", { token })
      .then(({ email }) => { this.status.textContent = `Your address ${email} is confirmed: a forgotten password can be reset through it.`; })
      .catch((error) => { this.status.textContent = message(error); });
  }

  destroy() {}
}

export class ForgotPasswordPage {
  constructor(root, config) {
    if (!config.mail) {
      clear(root, h("div", { class: "account-page narrow-page" }, h("h1", {}, "Forgot your password?"),
        h("p", { id: "mail-off" }, "This server sends no e-mail (its host has not set up a mail server), so a password cannot be reset by mail here.")));
      return;
    }
    const [emailLabel, email] = field("forgot-email", "Your account's confirmed e-mail address", { type: "email", autocomplete: "email", maxlength: 254 });
    const done = h("p", { role: "status", id: "forgot-status", "aria-live": "polite" });
    const node = form("forgot-form", null, [emailLabel, email], "Send me a link", async () => {
      const answer = await api("POST", "/api/password-reset", { email: email.value });
      done.textContent = message(answer.message);
    });
    clear(root, h("div", { class: "account-page narrow-page" }, h("h1", {}, "Forgot your password?"),
      h("p", {}, "A link to set a new password is mailed to the address your account confirmed."), node, done));
  }

  destroy() {}
}

export class ResetPasswordPage {
  constructor(root, token) {
    const [label, password] = field("reset-password", "New password", { type: "password", autocomplete: "new-password", ...PASSWORD_LENGTH });
    const node = form("reset-form", null, [label, password,
      h("p", { class: "hint-line" }, "At least 8 characters. Every browser signed in to the account is signed out, and this one signs in.")],
    "Set the password", async () => {
      const { account } = await api("POST", "/api/password-reset/new", { token, password: password.value });
      toast(`Your new password is set. Signed in as ${account.name}.`);
      location.hash = "#/";
      await loadAccount();
    });
    clear(root, h("div", { class: "account-page narrow-page" }, h("h1", {}, "Set a new password"), node));
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
          status.textContent = "Done: these mails are off. Account settings turns them on again.";
        } catch (error) {
          status.textContent = message(error);
          button.disabled = false;
        }
      } }, "Turn these mails off");
    clear(root, h("div", { class: "account-page narrow-page" }, h("h1", {}, "Turn mails off"),
      h("p", {}, "Stop the mails of this kind that the link came with?"), button, status));
  }

  destroy() {}
}
