// Keyboard-driven annotation: digits tag the active translation, j/k move between
// translations, n/p between probe sentences, z undoes. The page works without it.
(function () {
  "use strict";
  function panel() { return document.getElementById("annotation-panel"); }
  function choices() { return Array.prototype.slice.call(document.querySelectorAll("#annotation-panel .choice")); }
  function active() { return document.querySelector("#annotation-panel .choice.active") || choices()[0]; }
  function select(el) {
    choices().forEach(function (c) { c.classList.toggle("active", c === el); });
    if (el) el.scrollIntoView({ block: "nearest" });
  }
  function move(step) {
    var all = choices(), i = all.indexOf(active());
    if (all.length) select(all[Math.min(all.length - 1, Math.max(0, i + step))]);
  }
  function follow(id) { var a = document.getElementById(id); if (a) a.click(); }

  // A refused judgement (400) is not swapped in by htmx: show its message.
  document.addEventListener("htmx:responseError", function (event) {
    var box = document.getElementById("annotation-error");
    if (!box) return;
    box.textContent = event.detail.xhr.responseText || "The server refused this action.";
    box.hidden = false;
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    var box = document.getElementById("annotation-error");
    var target = event.detail && event.detail.target;
    if (box && target && target.id === "annotation-panel") box.hidden = true;
  });
  document.addEventListener("click", function (event) {
    var choice = event.target.closest && event.target.closest("#annotation-panel .choice");
    if (choice) select(choice);
  });
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var t = event.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) return;
    if (!panel()) return;
    var key = event.key;
    if (/^[1-8]$/.test(key)) {
      var row = active();
      var button = row && row.querySelector('button[data-shortcut="' + key + '"]');
      if (button) { event.preventDefault(); button.click(); }
    } else if (key === "j" || key === "ArrowDown") { event.preventDefault(); move(1); }
    else if (key === "k" || key === "ArrowUp") { event.preventDefault(); move(-1); }
    else if (key === "n" || key === "ArrowRight") { event.preventDefault(); follow("next-probe"); }
    else if (key === "p" || key === "ArrowLeft") { event.preventDefault(); follow("prev-probe"); }
    else if (key === "z") { event.preventDefault(); var u = document.getElementById("undo"); if (u) u.click(); }
  });
})();
