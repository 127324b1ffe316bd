// Runs in <head> so the remembered theme applies before the first paint.
(function () {
  try {
    var theme = localStorage.getItem("theme");
    if (theme === "light" || theme === "dark") {
      document.documentElement.dataset.theme = theme;
    }
  } catch (e) {
    /* storage can be disabled; the system setting then rules */
  }
})();
