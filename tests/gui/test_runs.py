"""The Run panel and the model profiles dialog, driven through their widgets against the fake OpenAI server.

The project holds the four real FieldWorkArena demo photos with their demo tasks, and the 80 tasks of
FieldWorkArena category 2.1 whose media is not distributed (they fail with ``missing_media``).
Expected tokens and costs are computed here from the fake server's scripted usage and the prices typed in.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import keyring
import pytest
from PySide6.QtCore import QItemSelectionModel, Qt
from sqlalchemy import select

from fieldstudio.gui.panels.runs import RunPanel
from fieldstudio.inference import profiles as profile_store
from fieldstudio.store.models import Answer, Run, Task
from fieldstudio.store.project import Project
from tests.support.fake_openai import Reply
from tests.support.gui_support import run_panel as make_panel

pytestmark = pytest.mark.gui

PLANTED_KEY = "sk-planted-GuiRunsKey7Qx2v"


def add_profile_through_dialog(qtbot, panel: RunPanel, *, name: str, base_url: str, price_in: str = "",
                               price_out: str = "", key: str | None = None, retries: int = 0,
                               concurrency: int = 1, timeout_s: float | None = None):  # noqa: ANN201
    dialog = panel.show_profiles_dialog()
    editor = dialog.editor
    qtbot.mouseClick(editor.new_button, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(editor.name, name)
    qtbot.keyClicks(editor.base_url, base_url)
    qtbot.keyClicks(editor.model_id, "fake-vlm")
    if key is not None:
        editor.key_source.setCurrentIndex(editor.key_source.findData("keyring"))
        qtbot.keyClicks(editor.key, key)
    editor.price_in.clear()
    qtbot.keyClicks(editor.price_in, price_in)
    qtbot.keyClicks(editor.price_out, price_out)
    editor.retries.setValue(retries)
    editor.concurrency.setValue(concurrency)
    if timeout_s is not None:
        editor.timeout.setValue(timeout_s)
    qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)
    return editor


def choose_category(panel: RunPanel, category: str) -> None:
    panel.scope.setCurrentIndex(panel.scope.findData("category"))
    panel.category.setCurrentIndex(panel.category.findData(category))


def wait_for_run(qtbot, panel: RunPanel, timeout: int = 30000) -> None:  # noqa: ANN001
    qtbot.waitUntil(lambda: not panel.is_running(), timeout=timeout)
    qtbot.wait(20)


def answers_by_task(project: Project, run_id: str) -> dict[str, Answer]:
    with project.read() as s:
        rows = s.execute(select(Task.external_id, Answer).join(Answer, Answer.task_id == Task.id)
                         .where(Answer.run_id == run_id)).all()
    return {ext: a for ext, a in rows}


def only_run_id(project: Project) -> str:
    with project.read() as s:
        ids = s.scalars(select(Run.id)).all()
    assert len(ids) == 1
    return ids[0]


def test_profile_made_in_the_dialog_runs_the_demo_tasks_with_hand_computed_cost(qtbot, fwa_project, fake_openai,
                                                                                memory_keyring):
    """4 photos, usage 1200 in / 40 out each, $2.50 / $10 per Mtok: 4 x (1200*2.5 + 40*10) / 1e6 = $0.0136."""
    fake_openai.require_key = PLANTED_KEY
    fake_openai.responder = lambda request: Reply(text="Both workers wear hard hats and vests.",
                                                  prompt_tokens=1200, completion_tokens=40)
    panel = make_panel(qtbot, fwa_project)
    # the root without /v1: the profile normalises it, and the list shows it
    editor = add_profile_through_dialog(qtbot, panel, name="fake-gpt", base_url=fake_openai.root, price_in="2.5",
                                        price_out="10", key=PLANTED_KEY)
    assert editor.model.cell(0, "Name") == "fake-gpt"
    assert editor.model.cell(0, "Base URL") == fake_openai.base_url
    assert editor.model.cell(0, "Key") == "OS keyring"
    assert editor.key.text() == "" and "stored in the OS keyring" in editor.key.placeholderText()
    assert memory_keyring.passwords[("fieldstudio", "fake-gpt")] == PLANTED_KEY
    assert PLANTED_KEY not in profile_store.profiles_path().read_text()
    panel._profiles_dialog.close()

    assert panel.checked_profile_names() == ["fake-gpt"]        # the only profile is ticked
    choose_category(panel, "demo")
    panel.strategy.setCurrentIndex(panel.strategy.findData("fieldworkarena"))
    panel.update_estimate()
    assert panel.task_count.text() == "4 task(s) chosen"
    assert "4 request(s), 4 image(s)" in panel.estimate.text()

    qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
    wait_for_run(qtbot, panel)

    run_id = only_run_id(fwa_project)
    answers = answers_by_task(fwa_project, run_id)
    assert sorted(answers) == ["demo.1", "demo.2", "demo.3", "demo.4"]
    for a in answers.values():
        assert a.raw_text == "Both workers wear hard hats and vests." and a.error is None
        assert (a.prompt_tokens, a.completion_tokens) == (1200, 40)
        assert a.cost_usd == pytest.approx((1200 * 2.5 + 40 * 10) / 1e6)
        assert len(a.frames) == 1 and a.frames[0]["file_name"].startswith("worksite_")
    chats = fake_openai.chat_requests()
    assert len(chats) == 4 and all(r.headers["authorization"] == f"Bearer {PLANTED_KEY}" for r in chats)
    assert all(len(r.image_urls()) == 1 for r in chats)

    assert (panel.progress.value(), panel.progress.maximum()) == (4, 4)
    assert panel.usage_label.text() == "Tokens: 4,800 in / 160 out · cost $0.0136"
    assert panel.progress_label.text().startswith("4 of 4 finished: 4 answered, 0 failed")
    assert panel.errors_model.rowCount() == 0
    assert panel.history.runs_model.cell(0, "Status") == "done"
    assert panel.history.runs_model.cell(0, "Answered") == "4"
    assert panel.history.runs_model.cell(0, "Cost") == "$0.0136"
    assert panel.history.answers_model.rowCount() == 4
    panel.history.answers.selectionModel().setCurrentIndex(panel.history.answers_model.index(0, 0),
                                                   QItemSelectionModel.SelectionFlag.ClearAndSelect)
    detail = panel.history.detail_text.toPlainText()
    assert "Task demo.1" in detail and "worksite_a.jpg frame 0" in detail and "sha256" in detail
    assert PLANTED_KEY.encode() not in Path(fwa_project.path).read_bytes()

    # the same choice again is answered from the cache: no request, no cost
    panel.new_run.setChecked(True)
    qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
    wait_for_run(qtbot, panel)
    assert len(fake_openai.chat_requests()) == 4
    assert panel.history.runs_model.cell(0, "Cached") == "4" and panel.history.runs_model.cell(0, "Cost") == "$0.0000"


def test_failed_tasks_are_listed_and_do_not_stop_the_run(qtbot, fwa_project, fake_openai):
    """demo.2 gets a 400 from the server, 2.1.0001 has no media; demo.1 and demo.3 are answered."""
    def reply(request):  # noqa: ANN001
        text = json.dumps(request.body)
        if "aisle be walked through" in text:
            return Reply(status=400, error_message="the request was malformed (test)")
        return Reply(text="yes", prompt_tokens=1000, completion_tokens=20)
    fake_openai.responder = reply
    panel = make_panel(qtbot, fwa_project)
    add_profile_through_dialog(qtbot, panel, name="fake", base_url=fake_openai.base_url, price_in="2",
                               price_out="8")
    panel._profiles_dialog.close()
    panel.set_task_selection(["demo.1", "2.1.0001", "demo.2", "demo.3"])
    panel.update_estimate()
    assert "4 task(s), 1 without their media (no request) → 3 request(s)" in panel.estimate.text()
    qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
    wait_for_run(qtbot, panel)

    answers = answers_by_task(fwa_project, only_run_id(fwa_project))
    assert answers["demo.1"].raw_text == "yes" and answers["demo.3"].raw_text == "yes"
    assert answers["demo.2"].error.startswith("bad_request:") and "malformed (test)" in answers["demo.2"].error
    assert answers["2.1.0001"].error.startswith("missing_media:")
    model = panel.errors_model      # the message column is shortened; its tooltip holds the whole message
    errors = {model.cell(i, "Task"): (model.cell(i, "Error"), model.index(i, 3).data(Qt.ItemDataRole.ToolTipRole))
              for i in range(model.rowCount())}
    assert model.headerData(3, Qt.Orientation.Horizontal) == "Message"
    assert set(errors) == {"demo.2", "2.1.0001"}, errors
    assert errors["demo.2"][0] == "bad_request" and "malformed (test)" in errors["demo.2"][1]
    assert errors["2.1.0001"][0] == "missing_media" and "WH_Products_Aisle_5" in errors["2.1.0001"][1]
    # 2 answered x (1000*2 + 20*8) / 1e6 = 2 x $0.00216
    assert panel.usage_label.text() == "Tokens: 2,000 in / 40 out · cost $0.0043"
    assert panel.progress_label.text().startswith("4 of 4 finished: 2 answered, 2 failed")
    assert "2 answered, 2 failed, 0 pending" in panel.message.text()


def test_stop_keeps_finished_answers_and_resume_never_asks_them_again(qtbot, fwa_project, fake_openai):
    fake_openai.latency_s = 0.25
    fake_openai.responder = lambda request: Reply(text="3 m", prompt_tokens=100, completion_tokens=10)
    panel = make_panel(qtbot, fwa_project)
    add_profile_through_dialog(qtbot, panel, name="slow", base_url=fake_openai.base_url, price_in="1",
                               price_out="1")
    panel._profiles_dialog.close()
    ids = [f"2.1.{i:04d}" for i in range(1, 13)]
    panel.set_task_selection(ids)
    panel.strategy.setCurrentIndex(panel.strategy.findData("blind"))     # text only: every task can be asked
    panel.use_cache.setChecked(False)     # some of these tasks ask the same question: each must be paid once
    qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.progress.value() >= 2, timeout=10000)
    qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)
    assert panel.cancel_button.text() == "Stopping…"
    wait_for_run(qtbot, panel, timeout=5000)            # stops after the request in flight (0.25 s)

    run_id = only_run_id(fwa_project)
    answers = answers_by_task(fwa_project, run_id)
    finished = {t for t, a in answers.items() if a.raw_text is not None}
    assert 2 <= len(finished) <= 4 and len(answers) == 12
    assert all(answers[t].raw_text == "3 m" and answers[t].prompt_tokens == 100 for t in finished)
    asked = len(fake_openai.chat_requests())
    assert asked == len(finished)
    assert panel.history.runs_model.cell(0, "Status") == "cancelled"
    assert panel.history.runs_model.cell(0, "Pending") == str(12 - len(finished))
    assert "Resume continues" in panel.message.text()

    fake_openai.latency_s = 0.0
    assert panel.history.resume_button.isEnabled()
    qtbot.mouseClick(panel.history.resume_button, Qt.MouseButton.LeftButton)
    wait_for_run(qtbot, panel)
    answers = answers_by_task(fwa_project, run_id)
    assert all(a.raw_text == "3 m" for a in answers.values())
    assert len(fake_openai.chat_requests()) == 12        # the finished ones were not asked again
    assert panel.history.runs_model.cell(0, "Status") == "done"
    # 12 x (100*1 + 10*1) / 1e6 = $0.00132
    assert panel.usage_label.text() == "Tokens: 1,200 in / 120 out · cost $0.0013"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_endpoint_gives_a_clear_message_in_test_and_in_the_run(qtbot, fwa_project):
    panel = make_panel(qtbot, fwa_project)
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    editor = add_profile_through_dialog(qtbot, panel, name="nowhere", base_url=url, price_in="1", price_out="1",
                                        timeout_s=2.0)
    qtbot.mouseClick(editor.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "not usable yet" in editor.result.toPlainText(), timeout=15000)
    text = editor.result.toPlainText()
    assert "FAIL models" in text and "cannot connect to the server" in text
    assert editor.model.cell(0, "Tested") == "never"       # an unreachable server is not recorded as tested
    panel._profiles_dialog.close()

    choose_category(panel, "demo")
    qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
    wait_for_run(qtbot, panel)
    message = panel.message.text()
    assert message.startswith("Stopped early:") and "cannot connect to the server" in message
    assert "Resume" in message
    with fwa_project.read() as s:
        texts = s.execute(select(Answer.raw_text, Answer.error)).all()
    assert len(texts) == 4 and all(t == (None, None) for t in texts)      # pending, to be resumed
    assert panel.history.runs_model.cell(0, "Status") == "failed"


def test_masked_credentials_and_keys_never_reach_the_widgets(qtbot, fwa_project, memory_keyring):
    profile_store.add_profile(profile_store.ModelProfile(
        name="proxy", base_url="https://user:s3cretpass@proxy.example/v1", model="m", use_keyring=True))
    memory_keyring.passwords[("fieldstudio", "proxy")] = PLANTED_KEY
    panel = make_panel(qtbot, fwa_project)
    editor = panel.show_profiles_dialog().editor
    editor.select("proxy")
    assert editor.base_url.text() == "https://***@proxy.example/v1"
    assert editor.model.cell(0, "Base URL") == "https://***@proxy.example/v1"
    assert editor.key.text() == "" and editor.key.echoMode() == editor.key.EchoMode.Password
    editor.price_in.setText("3")
    qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)
    stored = profile_store.get_profile("proxy")
    assert stored.base_url == "https://proxy.example/v1"                   # the secret is in the keyring
    assert profile_store.resolve_base_url(stored) == "https://user:s3cretpass@proxy.example/v1"  # and kept
    assert stored.price_input_per_mtok == 3.0
    assert "s3cretpass" not in editor.result.toPlainText()
    assert "s3cretpass" not in panel.profiles.item(0).toolTip()
    qtbot.mouseClick(editor.remove_button, Qt.MouseButton.LeftButton)
    assert "proxy" not in profile_store.load_profiles()
    assert ("fieldstudio", "proxy") not in memory_keyring.passwords
    assert panel.profiles.count() == 0


def test_a_wrong_form_value_is_named_and_nothing_is_saved(qtbot, fwa_project):
    panel = make_panel(qtbot, fwa_project)
    editor = add_profile_through_dialog(qtbot, panel, name="bad", base_url="http://127.0.0.1:9/v1",
                                        price_in="two dollars", price_out="8")
    assert editor.result.toPlainText().startswith("Not saved: Price in:")
    assert profile_store.load_profiles() == {}


def test_test_connection_reports_what_works_and_stores_it(qtbot, fwa_project, fake_openai):
    """The fake server says "red" to everything: the probe's red test image is "seen", JSON mode fails to parse."""
    fake_openai.responder = lambda request: Reply(text="red", prompt_tokens=12, completion_tokens=1)
    panel = make_panel(qtbot, fwa_project)
    editor = add_profile_through_dialog(qtbot, panel, name="probe-me", base_url=fake_openai.base_url)
    qtbot.mouseClick(editor.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "answers text" in editor.result.toPlainText(), timeout=15000)
    text = editor.result.toPlainText()
    assert "ok   models: the server lists 'fake-vlm'" in text
    assert "probe-me: answers text and accepts images." in text
    assert editor.model.cell(0, "Tested").startswith("ok, images ok")
    assert profile_store.get_profile("probe-me").capabilities.images_accepted is True


def test_two_profiles_double_click_and_task_signal(qtbot, fwa_project, fake_openai):
    fake_openai.responder = lambda request: Reply(text="fine", prompt_tokens=10, completion_tokens=2)
    panel = make_panel(qtbot, fwa_project)
    add_profile_through_dialog(qtbot, panel, name="one", base_url=fake_openai.base_url, price_in="1", price_out="1")
    add_profile_through_dialog(qtbot, panel, name="two", base_url=fake_openai.base_url)      # no prices
    panel._profiles_dialog.close()
    panel.set_profile_checked("one")
    panel.set_profile_checked("two")
    panel.set_task_selection(["demo.1", "demo.2"])
    panel.strategy.setCurrentIndex(panel.strategy.findData("blind"))
    panel.update_estimate()
    text = panel.estimate.text()
    assert "one: 2 task(s) → 2 request(s), 0 image(s)" in text and "two: 2 task(s) → 2 request(s)" in text
    assert "Total: 4 request(s)" in text and "unknown cost" in text
    panel.use_cache.setChecked(False)
    panel.activateWindow()
    panel.task_ids.setFocus()
    qtbot.waitUntil(panel.isActiveWindow, timeout=2000)
    qtbot.keyClick(panel.task_ids, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)     # Ctrl+Return starts
    assert panel.is_running()
    wait_for_run(qtbot, panel)
    assert len(fake_openai.chat_requests()) == 4
    assert panel.history.runs_model.rowCount() == 2
    # "two" has no prices: its cost is unknown, so the total is a lower bound
    assert panel.usage_label.text() == "Tokens: 40 in / 8 out · cost ≥ $0.000024 (2 of 4 answers priced)"
    view = panel.history.answers
    with qtbot.waitSignal(panel.open_task) as opened:
        rect = view.visualRect(panel.history.answers_model.index(0, 0))
        qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    with fwa_project.read() as s:
        assert s.get(Task, opened.args[0]).external_id == "demo.1"


def test_live_cost_text_counts_priced_answers_whatever_the_sum():
    """The live line follows fieldstudio.core.costs: a sum of $0 over priced answers is a cost, not "unknown"
    (the rule before read any incomplete $0 as unknown); no priced answer is unknown, whatever the sum."""
    from fieldstudio.core.costs import amount_text
    from fieldstudio.inference.runs.views import LiveTotals

    free_and_unpriced = LiveTotals(finished=4, answered=4, cost_usd=0.0, cost_complete=False, cost_unknown=2)
    assert free_and_unpriced.cost_text == "≥ $0.0000 (2 of 4 answers priced)"
    assert LiveTotals(finished=3, answered=3, cost_complete=False, cost_unknown=3).cost_text == \
        "unknown (0 of 3 answers priced)"
    assert LiveTotals(finished=2, answered=2, cost_usd=0.0031).cost_text == "$0.0031"
    assert amount_text(0.0, complete=False) == "≥ $0.0000" and amount_text(None) == "?"


def test_proposed_strategy_follows_the_chosen_tasks_until_the_user_picks_one(qtbot, tmp_path):
    """As ``fieldstudio run`` does for the tasks it is given (benchmarks.default_strategy): one IndustryEQA
    category proposes industryeqa, all tasks (FieldWorkArena among them) fieldworkarena; a strategy the user
    picks stays whatever the tasks."""
    from tests.support.scoring_fixtures import add_task

    with Project.create(tmp_path / "mixed.fieldstudio") as project:
        add_task(project, "2.1.0001", "Yes", source="fieldworkarena")
        add_task(project, "q-1", "3", source="industryeqa", category="small-warehouse")
        panel = make_panel(qtbot, project)
        assert panel.strategy.currentData() == "fieldworkarena"
        choose_category(panel, "small-warehouse")
        qtbot.waitUntil(lambda: panel.strategy.currentData() == "industryeqa", timeout=5000)
        choose_category(panel, "2.1")
        qtbot.waitUntil(lambda: panel.strategy.currentData() == "fieldworkarena", timeout=5000)
        panel.strategy.setCurrentIndex(panel.strategy.findData("blind"))
        choose_category(panel, "small-warehouse")
        qtbot.wait(400)                                  # past the 200 ms estimate timer
        assert panel.strategy.currentData() == "blind"
        panel.set_project(None)


def test_an_opened_projects_tasks_and_runs_are_read_on_a_worker(qtbot, fwa_project):
    """Opening a project reads its tasks' facets and its runs on a worker: the panel is empty until ``loaded``,
    then shows what the project holds, counted here straight from the database."""
    with fwa_project.write() as s:
        s.add(Run(name="imported run", kind="imported"))
    with fwa_project.read() as s:
        tasks = s.execute(select(Task.category)).scalars().all()
    per_category: dict[str, int] = {}
    for c in tasks:
        if c is not None:
            per_category[c] = per_category.get(c, 0) + 1
    panel = RunPanel()
    qtbot.addWidget(panel)
    panel.show()
    panel.set_project(fwa_project)
    assert panel.loading() and panel.history.runs_model.rows == [] and panel.category.count() == 0
    with qtbot.waitSignal(panel.loaded, timeout=20000):
        pass
    assert not panel.loading()
    assert [panel.category.itemText(i) for i in range(panel.category.count())] == [
        f"{c} ({n})" for c, n in sorted(per_category.items())]
    assert [r.name for r in panel.history.runs_model.rows] == ["imported run"]


def test_the_forms_estimate_is_made_on_a_worker(qtbot, fwa_project, monkeypatch):
    """A change of the form estimates the run on a worker (at 100,000 tasks the window's thread spent seconds on
    it); the count shown is the tasks of the category chosen, counted here from the database."""
    import threading

    from fieldstudio.gui.panels import runs as runs_panel

    on_gui_thread: list[bool] = []
    estimate = runs_panel.estimate_for

    def spy(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        on_gui_thread.append(threading.current_thread() is threading.main_thread())
        return estimate(*args, **kwargs)

    monkeypatch.setattr(runs_panel, "estimate_for", spy)
    panel = make_panel(qtbot, fwa_project)
    with fwa_project.read() as s:
        in_21 = len(s.execute(select(Task.id).where(Task.category == "2.1")).all())
    panel.scope.setCurrentIndex(panel.scope.findData("category"))
    panel.category.setCurrentIndex(panel.category.findData("2.1"))
    qtbot.waitUntil(lambda: panel.task_count.text() == f"{in_21} task(s) chosen", timeout=20000)
    assert on_gui_thread and not any(on_gui_thread)
