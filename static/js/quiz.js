// Exam mode: a running count of answered questions next to the submit button.
(function () {
  "use strict";

  var form = document.querySelector("[data-exam]");
  if (!form) return;
  var output = form.querySelector("[data-exam-progress]");
  var questions = form.querySelectorAll("fieldset.exam-question");

  function update() {
    var answered = 0;
    questions.forEach(function (fieldset) {
      if (fieldset.querySelector("input:checked")) answered += 1;
    });
    output.textContent = "Answered " + answered + " of " + questions.length;
  }

  if (output) {
    output.hidden = false;
    update();
    form.addEventListener("change", update);
  }
})();

// Exam mode's optional timer: counts down from the seconds the server gave, says so
// at five minutes and one minute, and submits the answers when time is up.
(function () {
  "use strict";

  var box = document.querySelector("[data-exam-timer]");
  var form = document.querySelector("[data-exam]");
  if (!box || !form) return;
  var clock = box.querySelector("[data-exam-clock]");
  var alertText = box.querySelector("[data-exam-alert]");
  var end = Date.now() + 1000 * Number(box.getAttribute("data-seconds-left") || 0);
  var warned = {};
  var submitted = false;

  function pad(value) {
    return value < 10 ? "0" + value : String(value);
  }

  function tick() {
    var left = Math.max(0, Math.round((end - Date.now()) / 1000));
    clock.textContent = Math.floor(left / 60) + ":" + pad(left % 60);
    [300, 60].forEach(function (mark) {
      if (left <= mark && left > 0 && !warned[mark]) {
        warned[mark] = true;
        alertText.textContent = mark / 60 + " minute" + (mark > 60 ? "s" : "") + " left.";
        box.classList.add("is-ending");
      }
    });
    if (left === 0 && !submitted) {
      submitted = true;
      alertText.textContent = "Time is up: submitting your answers.";
      form.requestSubmit();
      return;
    }
    if (left > 0) window.setTimeout(tick, 1000);
  }

  clock.parentElement.hidden = false;
  tick();
})();
