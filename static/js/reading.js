// Reading code: "Wrap lines" on every code block, one setting for the whole site,
// remembered in this browser. Loaded in <head> without defer so the remembered
// setting applies before the first paint (no jump from scrolling to wrapped lines).
(function () {
  "use strict";
  var KEY = "wrapCode";
  var root = document.documentElement;

  function stored() {
    try { return window.localStorage.getItem(KEY) === "1"; } catch (error) { return false; }
  }

  function apply(wrapped) {
    if (wrapped) root.setAttribute("data-wrap-code", "");
    else root.removeAttribute("data-wrap-code");
    document.querySelectorAll("button.wrap-toggle").forEach(function (button) {
      button.setAttribute("aria-pressed", wrapped ? "true" : "false");
    });
  }

  apply(stored());

  function setup(scope) {
    scope.querySelectorAll("button.wrap-toggle").forEach(function (button) {
      button.hidden = false;
      button.setAttribute("aria-pressed", root.hasAttribute("data-wrap-code") ? "true" : "false");
    });
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("button.wrap-toggle") : null;
    if (!button) return;
    var wrapped = !root.hasAttribute("data-wrap-code");
    try { window.localStorage.setItem(KEY, wrapped ? "1" : "0"); } catch (error) { /* private mode */ }
    apply(wrapped);
  });

  document.addEventListener("DOMContentLoaded", function () { setup(document); });
  document.addEventListener("htmx:load", function (event) { setup(event.target); });
})();
