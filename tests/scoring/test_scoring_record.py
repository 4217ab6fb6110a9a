"""What a scoring keeps for the reproducibility record of the runs it scored (``scoring.scoring_record``): the
scorer and its hash, the judge's settings and the SHA-256 of every judge prompt file, computed here with hashlib on
the files; and ``runs verify`` checking those files again."""

from __future__ import annotations

import hashlib

from fieldstudio.core.paths import resources_dir
from fieldstudio.inference.profiles import ModelProfile
from fieldstudio.inference.runs.run_context import record_entries
from fieldstudio.reproducibility import record, verify
from fieldstudio.scoring.official import source as official
from fieldstudio.scoring.service import score_answers
from fieldstudio.scoring.staleness import scorer_sha
from fieldstudio.store.models import Run
from tests.support.fake_openai import Reply
from tests.support.scoring_fixtures import add_run, add_task


def _scored(project, fake_openai, scorer: str, **kw) -> str:
    fake_openai.responder = lambda request: Reply(text="correct", prompt_tokens=30, completion_tokens=2)
    tasks = [add_task(project, f"1.1.000{i}", f"A worker carries box {i}", eval_func="fuzzy_match") for i in range(2)]
    run_id = add_run(project, "a", {t: f"box {i} is carried" for i, t in enumerate(tasks)})
    judge = ModelProfile(name="judge", base_url=fake_openai.base_url, model="j", retries=0, seed=3, temperature=0.0)
    score_answers(project, scorer, [run_id], judge, **kw)
    return run_id


def _scorings(project, run_id: str) -> list[dict]:
    with project.read() as s:
        return record_entries(s.get(Run, run_id).params)["scorings"]


def test_a_judged_scoring_keeps_its_judge_and_the_hashes_of_fieldstudios_prompts(project, fake_openai):
    run_id = _scored(project, fake_openai, "fwa-logic+fs-prompt")
    (entry,) = _scorings(project, run_id)
    assert entry["scorer"] == "fwa-logic+fs-prompt" and entry["answers_scored"] == 2 and entry["rows_written"] == 2
    assert entry["scorer_sha256"] == scorer_sha("fwa-logic+fs-prompt", entry["scorer_version"], {}, None)
    assert (entry["judge"]["model"], entry["judge"]["seed"], entry["judge"]["temperature"]) == ("j", 3, 0.0)
    files = entry["judge_files"]["files"]
    assert files and entry["judge_files"]["benchmark"] is None
    for f in files:
        assert f["sha256"] == hashlib.sha256((resources_dir() / "prompts" / f["file"]).read_bytes()).hexdigest()
    # scoring again changes nothing (every score stands): no second entry
    score_answers(project, "fwa-logic+fs-prompt", [run_id], ModelProfile(name="judge", base_url=fake_openai.base_url,
                                                                         model="j", retries=0, seed=3,
                                                                         temperature=0.0))
    assert len(_scorings(project, run_id)) == 1
    result = verify.verify_record(record.parse_record(record.record_bytes(project, run_id)), project)
    assert result.differences == [] and result.checked["judge files"] == len(files)


def test_the_benchmarks_own_judge_files_are_checked_where_they_are_located(project, fake_openai, standin_fwa):
    run_id = _scored(project, fake_openai, "fwa-official", official_source=standin_fwa)
    (entry,) = _scorings(project, run_id)
    assert entry["judge_files"]["benchmark"] == "fieldworkarena"
    # a benchmark file's fingerprint: SHA-256 of its text with CRLF read as LF and the final newlines left out
    on_disk = {p.name: hashlib.sha256(p.read_bytes().replace(b"\r\n", b"\n").rstrip(b"\n")).hexdigest()
               for p in standin_fwa.rglob("*") if p.is_file()}
    assert {f["file"]: f["sha256"] for f in entry["judge_files"]["files"]}.items() <= on_disk.items()
    rec = record.parse_record(record.record_bytes(project, run_id))
    # never located on this machine: each file is named as not checked
    differences = verify.verify_record(rec, project, frames=False).differences
    assert differences and all(d.startswith("judge file ") and "not located on this machine" in d
                               for d in differences)
    official.locate("fieldworkarena", standin_fwa)
    assert verify.verify_record(rec, project, frames=False).differences == []
