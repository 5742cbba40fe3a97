// cdstore serve: the one script, embedded in the binary; no inline script anywhere (CSP).
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  // The "Show SQL" button reveals the SQL panel without a reload.
  for (const button of document.querySelectorAll("button[data-toggle]")) {
    const target = document.getElementById(button.dataset.toggle);
    if (!target) continue;
    button.addEventListener("click", () => {
      target.hidden = !target.hidden;
      button.textContent = target.hidden ? button.dataset.show : button.dataset.hide;
    });
  }
});
