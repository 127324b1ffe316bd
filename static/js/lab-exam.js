// The lab exam's clock: counts down on the page and, when the time is up, sends the finish form
// (the server ends the exam by its own deadline anyway: this only saves a click).
(function () {
  "use strict";
  var clock = document.getElementById("exam-clock");
  var shown = document.getElementById("exam-time-left");
  var form = document.getElementById("exam-finish");
  if (!clock || !shown || !form) return;
  var ends = Date.now() + Number(clock.dataset.secondsLeft || "0") * 1000;
  function text(seconds) {
    var minutes = Math.floor(seconds / 60), rest = seconds % 60;
    return minutes ? minutes + " min " + (rest < 10 ? "0" : "") + rest + " s" : rest + " s";
  }
  var timer = setInterval(function () {
    var left = Math.max(0, Math.round((ends - Date.now()) / 1000));
    shown.textContent = text(left);
    if (left <= 0) {
      clearInterval(timer);
      // A second late, so the server's clock agrees the time is up.
      setTimeout(function () { form.submit(); }, 1000);
    }
  }, 1000);
})();
