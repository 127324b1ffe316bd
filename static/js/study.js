// Study tools: after htmx replaces a region, keep keyboard and screen-reader users
// in place. If the control they used went away with the old content, focus moves
// to the new content's [data-autofocus] element (a heading with tabindex="-1").
(function () {
  "use strict";

  function focusLost() {
    var active = document.activeElement;
    return !active || active === document.body || !document.contains(active);
  }

  document.addEventListener("htmx:afterSettle", function () {
    if (!focusLost()) return;
    var target = document.querySelector("[data-autofocus]");
    if (target) target.focus();
  });
})();
