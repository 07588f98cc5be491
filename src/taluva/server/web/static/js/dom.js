// Building HTML safely: text always goes in as text nodes, never as markup.

export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      node.addEventListener(name.slice(2), value);
    } else if (value === true) {
      node.setAttribute(name, "");
    } else {
      node.setAttribute(name, String(value));
    }
  }
  append(node, children);
  return node;
}

export function append(node, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function clear(node, ...children) {
  node.replaceChildren();
  return append(node, children);
}

let toastTimer = null;

/** A short message at the bottom of the screen (errors from the server, confirmations). */
export function toast(text, kind = "info") {
  let box = document.getElementById("toast");
  if (!box) {
    box = h("div", { id: "toast", role: "status", "aria-live": "assertive" });
    document.body.appendChild(box);
  }
  box.className = `toast ${kind} show`;
  box.textContent = text;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => box.classList.remove("show"), 4500);
}

/** A translated sentence with elements in it: each `{name}` of `text` (as t() left it) is
 * replaced by the node `nodes[name]`, so that a word in bold keeps the sentence whole. */
export function sentenceWith(text, nodes) {
  return text.split(/\{([A-Za-z_][A-Za-z0-9_]*)\}/).map((part, i) => (i % 2 ? nodes[part] ?? `{${part}}` : part)).filter((part) => part !== "");
}
