"""Regenerate the README screenshots from the demo project: `python docs/make_screenshots.py`.

Runs offscreen; writes docs/screenshot-{video,photo,pdf,tasks,rate}.jpg.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="fieldstudio-shots-"))
    os.environ["FIELDSTUDIO_CONFIG_DIR"] = str(tmp / "config")
    from fieldstudio.demo.project import build_demo
    from fieldstudio.gui.app import application
    from fieldstudio.gui.main_window import MainWindow
    from fieldstudio.media import library
    from fieldstudio.store.project import Project

    build_demo(tmp / "demo.fieldstudio")
    app = application()
    w = MainWindow(Project.open(tmp / "demo.fieldstudio"))
    w.resize(1440, 880)
    w.show()

    def pump(seconds: float) -> None:
        end = time.time() + seconds
        while time.time() < end:
            app.processEvents()
            time.sleep(0.01)

    def show(name: str) -> None:
        w.library.select(library.find_media(w.project, name).id)
        pump(1.5)

    show("worker_zone_hardhat_vest_from_gif.mp4")
    w.go_to("#45")
    pump(1.0)
    w.grab().save(str(HERE / "screenshot-video.jpg"))
    show("ppe_electricians_hardhat_vest_wire_room_mta.jpg")
    w.grab().save(str(HERE / "screenshot-photo.jpg"))
    show("osha_factsheet_lockout_tagout_2002.pdf")
    w.document.find("energy-isolating")
    pump(0.5)
    w.grab().save(str(HERE / "screenshot-pdf.jpg"))
    tasks = w.workspace.show_panel("tasks")
    rows = [r for r in range(tasks.proxy.rowCount()) if tasks.proxy.index(r, 0).data() == "dist-01"]
    tasks.table.setCurrentIndex(tasks.proxy.index(rows[0] if rows else 0, 0))
    pump(1.5)
    w.grab().save(str(HERE / "screenshot-tasks.jpg"))
    w.workspace.show_panel("rater")
    pump(2.0)
    w.grab().save(str(HERE / "screenshot-rate.jpg"))
    w.modes.setCurrentIndex(0)
    w.close()
    print("wrote", *(HERE / f"screenshot-{k}.jpg" for k in ("video", "photo", "pdf", "tasks", "rate")))


if __name__ == "__main__":
    main()
