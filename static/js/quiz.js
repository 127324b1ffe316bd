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
