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

// Live updates: while a store, entity or object page is open, the server pushes the store's
// changes (Server-Sent Events from the URL in <body data-events>). The notice counts them per
// entity and offers a Refresh; on an entity page the refresh passes the inserted and updated
// Z_PKs of the entity and its sub-entities (<body data-entities>, a JSON array of names) as
// ?changed=…, and the server marks those rows. Everything is written with textContent: entity
// names come from the store. <body data-live> tells the stream's state: "open" while the
// server's events arrive, "connecting" while the browser reconnects, "closed" after the
// server's error event.
document.addEventListener("DOMContentLoaded", () => {
  const url = document.body.dataset.events;
  if (!url || !window.EventSource) return;
  let entities = [];
  try {
    const names = JSON.parse(document.body.dataset.entities || "[]");
    if (Array.isArray(names)) entities = names.filter((name) => typeof name === "string");
  } catch (ignored) {}
  const maximumKeys = 1000;
  const totals = new Map();
  const changedKeys = new Set();
  const notice = document.createElement("p");
  notice.className = "notice live";
  notice.setAttribute("role", "status");
  notice.hidden = true;
  const text = document.createElement("span");
  const refresh = document.createElement("button");
  refresh.type = "button";
  refresh.textContent = "Refresh";
  notice.append(text, " ", refresh);
  document.querySelector("main").prepend(notice);

  const plural = (count, word) => `${count} ${word}${count === 1 ? "" : "s"}`;
  const source = new EventSource(url);
  document.body.dataset.live = "connecting";
  source.addEventListener("open", () => {
    document.body.dataset.live = "open";
  });
  source.addEventListener("change", (event) => {
    const change = JSON.parse(event.data);
    const total = totals.get(change.entity) || { inserted: 0, updated: 0, deleted: 0 };
    total.inserted += change.inserted;
    total.updated += change.updated;
    total.deleted += change.deleted;
    totals.set(change.entity, total);
    if (entities.includes(change.entity)) {
      for (const key of change.inserted_pks.concat(change.updated_pks)) {
        if (changedKeys.size < maximumKeys) changedKeys.add(key);
      }
    }
    text.textContent = Array.from(totals, ([entity, t]) =>
      `${plural(t.inserted, "insert")}, ${plural(t.updated, "update")}, ${plural(t.deleted, "delete")} in ${entity}`,
    ).join("; ") + " —";
    notice.hidden = false;
  });
  // The server's own "error" event has data and ends the stream; one without data is the
  // browser losing the connection, after which it reconnects by itself.
  source.addEventListener("error", (event) => {
    if (!event.data) {
      document.body.dataset.live = source.readyState === EventSource.CLOSED ? "closed" : "connecting";
      return;
    }
    source.close();
    document.body.dataset.live = "closed";
    let message = "The store is no longer watched.";
    try {
      message = JSON.parse(event.data).error.message;
    } catch (ignored) {}
    text.textContent = message;
    refresh.hidden = true;
    notice.classList.add("error");
    notice.hidden = false;
  });
  refresh.addEventListener("click", () => {
    const target = new URL(window.location.href);
    target.searchParams.delete("changed");
    if (entities.length > 0 && changedKeys.size > 0) {
      target.searchParams.set("changed", Array.from(changedKeys).sort((a, b) => a - b).join(","));
    }
    window.location.assign(target.toString());
  });
});
