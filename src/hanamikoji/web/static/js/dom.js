// Tiny DOM helpers: every text goes in through textContent or an attribute, never as HTML.

const SVG_NS = "http://www.w3.org/2000/svg";

function setAttrs(node, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") node.textContent = String(value);
    else if (key === "class") node.setAttribute("class", value);
    else if (key.startsWith("on") && typeof value === "function") {
      node.addEventListener(key.slice(2), value);
    } else node.setAttribute(key, value === true ? "" : String(value));
  }
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** An HTML element: h("button", {class: "x", text: "Go", onclick}, child, ...). */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

/** An SVG element, same calling convention as h(). */
export function s(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

/** Replace all children of node. */
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

export const $ = (selector, root = document) => root.querySelector(selector);
export const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

/** A way to find the focused element again after its container was re-rendered. */
function focusKey(node) {
  if (!node || node === document.body) return null;
  if (node.id) return `#${CSS.escape(node.id)}`;
  for (const attr of ["data-move", "data-action"]) {
    if (node.hasAttribute(attr)) return `[${attr}="${CSS.escape(node.getAttribute(attr))}"]`;
  }
  const path = [];
  for (let n = node; n && n !== document.body; n = n.parentElement) {
    if (n.id) {
      path.unshift(`#${CSS.escape(n.id)}`);
      return path.join(" > ");
    }
    path.unshift(`:nth-child(${[...n.parentElement.children].indexOf(n) + 1})`);
  }
  return null;
}

/** Run a re-render and give the focus back to the same control (keyboard users keep their place). */
export function keepFocus(render) {
  const key = focusKey(document.activeElement);
  render();
  if (!key) return;
  const again = document.querySelector(key);
  if (again && again !== document.activeElement && !again.disabled) again.focus({ preventScroll: true });
}
