// A "Copy" button for a read-only link field.

import { t } from "./i18n.js";

export function copyButton(button, input) {
  button.addEventListener("click", async () => {
    input.focus();
    input.select();
    let ok = false;
    try {
      await navigator.clipboard.writeText(input.value);
      ok = true;
    } catch {
      try {
        ok = document.execCommand("copy");
      } catch {
        ok = false;
      }
    }
    button.textContent = ok ? t("home.copied") : t("home.copy_failed");
    setTimeout(() => {
      button.textContent = t("home.copy");
    }, 2000);
  });
}
