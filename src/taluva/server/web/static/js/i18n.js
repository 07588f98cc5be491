// The player's language: the server's catalog for it (GET /api/i18n chooses by the account's
// setting, the taluva-lang cookie, then Accept-Language), and the words in it. Every text the
// client shows goes through t() or tn(), with the English sentence as its id and named
// placeholders ("{name} resigned"), so that scripts/catalogs.py extracts it for translators.
// The module waits for its catalog (top-level await), so every module importing it may call
// t() as it loads.

const STORED = "taluva.i18n"; // the last catalog, for the offline page
export const LANGUAGE_COOKIE = "taluva-lang";
const WAIT_MS = 8000; // a server that does not answer: the stored catalog, not a page left blank

async function loadCatalog() {
  try {
    const signal = typeof AbortSignal.timeout === "function" ? AbortSignal.timeout(WAIT_MS) : undefined;
    const response = await fetch("/api/i18n", { credentials: "same-origin", signal });
    if (response.ok) {
      const catalog = await response.json();
      try {
        localStorage.setItem(STORED, JSON.stringify(catalog));
      } catch {
        // a full or blocked storage only costs the offline page its language
      }
      return catalog;
    }
  } catch {
    // offline: the catalog this browser last loaded, else English
  }
  try {
    const stored = JSON.parse(localStorage.getItem(STORED) || "null");
    if (stored?.messages) return stored;
  } catch {
    // a broken stored catalog: English
  }
  return { lang: "en", messages: {}, languages: { en: "English" } };
}

const catalog = await loadCatalog();

/** The language code the page speaks ("en", "de", "fr"). */
export const lang = catalog.lang || "en";
/** The shipped languages, by code, each named in itself (the switch's choices). */
export const languages = catalog.languages || { en: "English" };
document.documentElement.lang = lang;

const plurals = new Intl.PluralRules(lang);
const englishPlurals = new Intl.PluralRules("en");
const numbers = new Intl.NumberFormat(lang);

function said(value) {
  if (typeof value === "number" && lang !== "en") return numbers.format(value);
  return String(value);
}

function fill(words, values) {
  return words.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name) => (name in values ? said(values[name]) : whole));
}

/** `id` (the English sentence) in the page's language, `{name}` filled from `values`. */
export function t(id, values = {}) {
  const words = catalog.messages[id];
  return fill(typeof words === "string" ? words : id, values);
}

/** The form for `n` of a sentence with a count, by the language's CLDR plural rules;
 * `{n}` is filled with `n` unless `values` says otherwise. */
export function tn(one, other, n, values = {}) {
  const forms = catalog.messages[one];
  let words;
  if (forms && typeof forms === "object") words = forms[plurals.select(n)] ?? forms.other;
  else words = englishPlurals.select(n) === "one" ? one : other; // not translated: the source's two forms
  return fill(words, { n, ...values });
}

/** A number as the language writes it (1,234 · 1.234 · 1 234); `options` as Intl.NumberFormat
 * takes them (fraction digits, grouping). */
export function number(n, options = null) {
  return options ? new Intl.NumberFormat(lang, options).format(n) : numbers.format(n);
}

/** A length of time in whole units of `unit` ("day", "hour", "minute", "second"): "3 days",
 * "3 Tage", "3 jours". */
export function duration(count, unit) {
  return new Intl.NumberFormat(lang, { style: "unit", unit, unitDisplay: "long" }).format(count);
}

/** Several things in one phrase: "Ana, Ben and Cleo", "Ana, Ben und Cleo". */
export function listing(items) {
  return new Intl.ListFormat(lang, { type: "conjunction" }).format(items.map(String));
}

/** A date and time as the language writes them. */
export function dateTime(date, options = { dateStyle: "medium", timeStyle: "short" }) {
  return new Intl.DateTimeFormat(lang, options).format(date);
}

/** The words of a page's HTML in the page's language: each element marked `data-t` (its text
 * is the English id) and each attribute named in its `data-t-attrs` ("aria-label title"), as
 * scripts/catalogs.py extracts them. */
export function translatePage(root = document) {
  for (const node of root.querySelectorAll("[data-t]")) {
    const id = node.textContent.replace(/\s+/g, " ").trim();
    if (id) node.textContent = t(id);
  }
  for (const node of root.querySelectorAll("[data-t-attrs]")) {
    for (const name of node.dataset.tAttrs.split(/\s+/).filter(Boolean)) {
      const id = node.getAttribute(name);
      if (id) node.setAttribute(name, t(id));
    }
  }
}

/** Speak `code` from now on: remembered by a cookie (and by the account, which the caller
 * saves when signed in), then the page loads again in it. */
export function chooseLanguage(code) {
  document.cookie = `${LANGUAGE_COOKIE}=${encodeURIComponent(code)}; path=/; max-age=31536000; samesite=lax`;
  location.reload();
}
