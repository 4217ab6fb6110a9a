"""The "Run model on these tasks…" context menu of the task lists (the Tasks tab's list, the Compare grid).

A right-click on the list offers two actions: run on the tasks of the selected rows, and run on every task the
list shows after its filters. Either one calls ``request(task_ids)``; the workspace brings the Runs tab
forward with those task ids chosen ("These task ids"), where the estimate, the profiles and Start are.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QPoint, Qt
from PySide6.QtWidgets import QAbstractItemView, QMenu

TaskIds = Callable[[], list[str]]


def unique(ids: list[str]) -> list[str]:
    """``ids`` without repeats, first occurrence kept (a grid selection has several cells per task)."""
    return list(dict.fromkeys(i for i in ids if i))


class RunTasksMenu(QObject):
    """Context menu of ``view``: ``selected()`` and ``shown()`` give task ids; ``request(ids)`` starts the choice.

    ``menu()`` builds the menu the right-click shows (tests trigger its actions directly).
    """

    def __init__(self, view: QAbstractItemView, selected: TaskIds, shown: TaskIds,
                 request: Callable[[list[str]], None]):
        super().__init__(view)
        self.view, self._selected, self._shown, self._request = view, selected, shown, request
        view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        view.customContextMenuRequested.connect(self._popup)

    def menu(self) -> QMenu:
        """The two actions, with the number of tasks each covers; disabled when it covers none."""
        menu = QMenu(self.view)
        selected, shown = unique(self._selected()), unique(self._shown())
        on_selected = menu.addAction(f"Run model on these tasks… ({len(selected)} selected)")
        on_selected.setObjectName("run_selected")
        on_selected.setToolTip("Open the Runs tab with the selected tasks chosen")
        on_selected.setEnabled(bool(selected))
        on_selected.triggered.connect(lambda: self._request(selected))
        on_shown = menu.addAction(f"Run model on all {len(shown)} tasks shown…")
        on_shown.setObjectName("run_shown")
        on_shown.setToolTip("Open the Runs tab with every task the list shows after its filters")
        on_shown.setEnabled(bool(shown))
        on_shown.triggered.connect(lambda: self._request(shown))
        return menu

    def _popup(self, pos: QPoint) -> None:
        self.menu().exec(self.view.viewport().mapToGlobal(pos))
