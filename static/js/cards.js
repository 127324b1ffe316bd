// Flashcards: click the card or press Space to flip it; 1-4 grade it
// (Again, Hard, Good, Easy) once the answer shows. The buttons do the same
// without JavaScript; this only adds the shortcuts.
(function () {
  "use strict";

  function isControl(element) {
    return Boolean(element && element.closest &&
      element.closest("a, button, summary, input, select, textarea, [contenteditable]"));
  }

  function cardBack() {
    return document.querySelector("[data-flashcard] [data-back]");
  }

  function say(text) {
    var status = document.getElementById("cards-status");
    if (status) status.textContent = text;
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
    var back = cardBack();
    if (!back) return;
    if (event.key === " ") {
      if (isControl(event.target)) return;
      event.preventDefault();
      back.open = !back.open;
      return;
    }
    if (/^[1-4]$/.test(event.key)) {
      var tag = event.target && event.target.tagName;
      if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
      if (!back.open) {
        say("Show the answer first: press Space, then grade it 1 to 4.");
        return;
      }
      var button = back.querySelector('[data-grade="' + event.key + '"]');
      if (button) {
        event.preventDefault();
        button.click();
      }
    }
  });

  document.addEventListener("click", function (event) {
    var front = event.target.closest && event.target.closest("[data-flip]");
    if (!front || event.target.closest("a")) return;
    var back = cardBack();
    if (back) back.open = !back.open;
  });
})();
