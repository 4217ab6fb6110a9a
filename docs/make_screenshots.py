"""Regenerate the README screenshots from the demo project: `python docs/make_screenshots.py`.

Runs offscreen; writes docs/screenshot-{video,photo,pdf,tasks,compare,rate,report}.jpg. The report's picture
is the HTML report exported from the demo project, rendered by headless Chromium (Debian's ``chromium``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
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
        w.library.select(library.find_media(w.state.project, name).id)
        pump(1.5)

    show("worker_zone_hardhat_vest_from_gif.mp4")
    w.go_to("#45")
    pump(1.0)
    w.grab().save(str(HERE / "screenshot-video.jpg"))
    show("ppe_electricians_hardhat_vest_wire_room_mta.jpg")
    w.grab().save(str(HERE / "screenshot-photo.jpg"))
    show("osha_factsheet_lockout_tagout_2002.pdf")
    w.view.document.find("energy-isolating")
    pump(0.5)
    w.grab().save(str(HERE / "screenshot-pdf.jpg"))
    tasks = w.workspace.show_panel("tasks")
    rows = [r for r in range(tasks.proxy.rowCount()) if tasks.proxy.index(r, 0).data() == "dist-01"]
    tasks.table.setCurrentIndex(tasks.proxy.index(rows[0] if rows else 0, 0))
    pump(1.5)
    w.grab().save(str(HERE / "screenshot-tasks.jpg"))
    w.workspace.show_panel("comparison")
    pump(4.0)
    w.grab().save(str(HERE / "screenshot-compare.jpg"))
    w.workspace.show_panel("rater")
    pump(2.0)
    w.grab().save(str(HERE / "screenshot-rate.jpg"))
    w.modes.setCurrentIndex(0)
    w.close()
    report_shot(tmp / "demo.fieldstudio", tmp)
    print("wrote", *(HERE / f"screenshot-{k}.jpg" for k in ("video", "photo", "pdf", "tasks", "compare", "rate",
                                                             "report")))


def report_shot(project_path: Path, tmp: Path) -> None:
    """The demo's HTML report, as the File menu exports it, rendered to a JPEG by headless Chromium."""
    from PIL import Image

    from fieldstudio.compare.report_export import export_report
    from fieldstudio.store.project import Project

    html = tmp / "report.html"
    with Project.open(project_path) as project:
        export_report(project, html)
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("chromium not found: no report screenshot")
        return
    png = tmp / "report.png"
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    f"--user-data-dir={tmp / 'chromium'}", "--hide-scrollbars", "--window-size=1280,1400",
                    f"--screenshot={png}", html.as_uri()], check=True, capture_output=True, timeout=120)
    Image.open(png).convert("RGB").save(HERE / "screenshot-report.jpg", quality=85)


if __name__ == "__main__":
    main()
