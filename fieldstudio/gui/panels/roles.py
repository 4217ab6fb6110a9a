"""What a tab's panel may declare, and what the window does with each declaration.

The evaluation tabs (gui/workspace.py) are wired by what their panels have, never by their names: a panel
is a QWidget with ``set_project(project)`` (None: the project closed) and a ``status(text)`` signal, and
beyond that the workspace connects what it finds.

**Signals are heard by name.** When a panel's signal ``X`` fires, the workspace calls its own ``on_X`` and
the ``on_X`` of every other panel built so far, with the signal's arguments. The workspace hears:

- ``status(text)``: the status bar;
- ``open_media_at(media_id, frame_index)``: the Media tab comes forward and the state is asked for that frame
  (``ViewState.request_frame``; the viewer serves it);
- ``run_on_tasks(task_ids)``, ``open_task(task_id)``, ``open_item(item_id)``: the tab whose panel
  :class:`ChoosesTasksToRun`, :class:`SelectsTasks` or :class:`ReviewsItems` comes forward on them.

A panel hears another's change by a method named after that panel's signal: Compare's
``ground_truth_changed(task_id)`` reaches the Tasks tab's ``on_ground_truth_changed``, the Runs tab's
``runs_changed()`` Compare's ``on_runs_changed``, the rater's ``rating_saved(item_id)`` the agreement's
``on_rating_saved``. Changes the window makes reach every built panel's method of that name:
``on_tasks_imported()`` (File ▸ Import tasks or answers), ``on_ratings_imported()`` (a rating package merged),
``on_annotations_changed()`` (the viewer's marks changed), and ``on_tab_shown()`` when the panel's tab comes
forward again.

**Capabilities** are the protocols below; a panel that has one is treated so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from PySide6.QtGui import QUndoStack

    from fieldstudio.gui.state import ViewState


@runtime_checkable
class Undoable(Protocol):
    """Its edits are undone with Edit ▸ Undo while its tab is in front: the stack joins the window's undo group."""

    undo_stack: QUndoStack


@runtime_checkable
class FollowsView(Protocol):
    """It uses the media and frame the viewer shows (the task editor's "Use current frame")."""

    def follow_view(self, state: ViewState) -> None:
        """Read ``state`` (the window's ViewState) and subscribe to its events."""


@runtime_checkable
class EditsAForm(Protocol):
    """It holds a form whose changes are saved when its tab or the project is left (never left unsaved)."""

    dirty: bool

    def save(self) -> bool:
        """Save the form; False when it has problems (then it stays, with them marked)."""


@runtime_checkable
class RunsInBackground(Protocol):
    """It runs work on threads that must stop when the project closes."""

    def is_running(self) -> bool:
        """True while its work runs."""

    def cancel(self) -> None:
        """Stop its work."""


@runtime_checkable
class ShowsScores(Protocol):
    """It shows scores of one scorer: File ▸ Export report writes the comparison of that scorer."""

    def current_scorer(self) -> str | None:
        """The scorer shown (None before anything is loaded)."""


@runtime_checkable
class ChoosesTasksToRun(Protocol):
    """Its tab is where "Run model on these tasks…" goes."""

    def set_task_selection(self, task_ids: list[str]) -> None:
        """Choose ``task_ids`` to run."""


@runtime_checkable
class SelectsTasks(Protocol):
    """Its tab is where a task named elsewhere (a run's task) is opened."""

    def select_task(self, task_id: str) -> None:
        """Show task ``task_id``."""


@runtime_checkable
class ReviewsItems(Protocol):
    """Its tab is where a rating item named elsewhere (an agreement row) is reviewed."""

    def show_item(self, item_id: str, *, review: bool = False) -> None:
        """Show rating item ``item_id`` (``review``: as a reviewer, with the ratings given)."""


@runtime_checkable
class TakesTextSuggestion(Protocol):
    """Its form can take text read elsewhere (Annotate ▸ Read text here) as a suggestion the person checks and saves."""

    def text_target(self) -> str | None:
        """What the text would fill, for the button ("ground truth of task T-3"); None when nothing can take it now."""

    def suggest_text(self, text: str) -> None:
        """Put ``text`` into that field, unsaved (the form becomes dirty), and say so."""
