from __future__ import annotations

from django.urls import path

from studysite.study.views import bank, cards, pages, progress, quiz, scenarios

app_name = "study"

urlpatterns = [
    path("quiz/", quiz.quiz_home, name="quiz"),
    path("quiz/start", quiz.quiz_start, name="quiz-start"),
    path("quiz/<int:attempt_id>/", quiz.quiz_attempt, name="quiz-attempt"),
    path("quiz/<int:attempt_id>/answer", quiz.quiz_answer, name="quiz-answer"),
    path(
        "quiz/<int:attempt_id>/answered/<slug:question_id>/",
        quiz.quiz_feedback,
        name="quiz-feedback",
    ),
    path("quiz/<int:attempt_id>/submit", quiz.quiz_submit, name="quiz-submit"),
    path("quiz/<int:attempt_id>/finish", quiz.quiz_finish, name="quiz-finish"),
    path("quiz/<int:attempt_id>/results/", quiz.quiz_results, name="quiz-results"),
    path("quiz/questions/<slug:question_id>/", quiz.quiz_question, name="quiz-question"),
    path(
        "quiz/questions/<slug:question_id>/answer",
        quiz.quiz_question_answer,
        name="quiz-question-answer",
    ),
    path("bank/", bank.bank_home, name="bank"),
    path("bank/start", bank.bank_start, name="bank-start"),
    path("bank/practice/", bank.bank_practice, name="bank-practice"),
    path("bank/practice/answer", bank.bank_answer, name="bank-answer"),
    path("bank/practice/answered/<slug:question_id>/", bank.bank_answered, name="bank-answered"),
    path("cards/", cards.cards_home, name="cards"),
    path("cards/grade", cards.cards_grade, name="cards-grade"),
    path("cards/undo", cards.cards_undo, name="cards-undo"),
    path("cards/shuffle", cards.cards_shuffle, name="cards-shuffle"),
    path("scenarios/", scenarios.scenario_list, name="scenarios"),
    path("scenarios/<slug:scenario_id>/", scenarios.scenario_detail, name="scenario"),
    *[
        path(
            f"scenarios/<slug:scenario_id>/{step}",
            scenarios.scenario_step,
            {"step": step},
            name=f"scenario-{step}",
        )
        for step in scenarios.STEPS
    ],
    path("reference/", pages.reference, name="reference"),
    path("traps/", pages.traps, name="traps"),
    path("progress/", progress.progress_home, name="progress"),
    path("progress/export", progress.progress_export, name="progress-export"),
    path("progress/import", progress.progress_import, name="progress-import"),
    path("progress/reset", progress.progress_reset_confirm, name="progress-reset-confirm"),
    path("progress/reset/erase", progress.progress_reset, name="progress-reset"),
]
